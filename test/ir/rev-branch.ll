; Reverse mode, branches: a block with several predecessors records which
; one ran. The augmented forward sweep adds a phi "from" (i32: 0 for its
; first predecessor, 1 for the second, ...) to the merge block and records it
; once per execution of the block; the reverse sweep reads the record and
; switches on it, to the reverse of the predecessor that ran, carrying the
; merge phi's adjoint along that edge. Where one conditional branch decides
; between two predecessors (an if, an if-else), "from" is a select on its
; condition instead, which the reverse sweep computes again: no record.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_out = external global i32

declare double @__enzyme_autodiff(ptr, ...)

; x > 0 ? p[0] x : p[1] p[1]
; (the loads keep the branches apart: they cannot be speculated)
define internal double @f(ptr %p, double %x) {
entry:
  %pos = fcmp ogt double %x, 0.0
  br i1 %pos, label %then, label %else
then:
  %a = load double, ptr %p
  %t = fmul double %a, %x
  br label %merge
else:
  %q = getelementptr inbounds double, ptr %p, i64 1
  %b = load double, ptr %q
  %u = fmul double %b, %b
  br label %merge
merge:
  %r = phi double [ %t, %then ], [ %u, %else ]
  ret double %r
}

; the same with three cases
define internal double @g(ptr %p, double %x, i32 %k) {
entry:
  switch i32 %k, label %c0 [ i32 1, label %c1
                             i32 2, label %c2 ]
c0:
  %a = load double, ptr %p
  %t = fmul double %a, %x
  br label %merge
c1:
  %q = getelementptr inbounds double, ptr %p, i64 1
  %b = load double, ptr %q
  %u = fmul double %b, %b
  br label %merge
c2:
  %q2 = getelementptr inbounds double, ptr %p, i64 2
  %c = load double, ptr %q2
  %v = fdiv double %c, %x
  br label %merge
merge:
  %r = phi double [ %t, %c0 ], [ %u, %c1 ], [ %v, %c2 ]
  ret double %r
}

define double @test(ptr %p, ptr %dp, double %x, i32 %k) {
  %dup = load i32, ptr @enzyme_dup
  %o = load i32, ptr @enzyme_out
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %dup, ptr %p, ptr %dp, i32 %o, double %x)
  %e = call double (ptr, ...) @__enzyme_autodiff(ptr @g, i32 %dup, ptr %p, ptr %dp, i32 %o, double %x, i32 %k)
  %s = fadd double %d, %e
  ret double %s
}

; Two predecessors, decided by the branch on x > 0. In reverse, 'then' adds
; x seed into d.p[0] and returns p[0] seed for x; 'else' adds 2 p[1] seed
; into d.p[1]. The condition is computed again; nothing is recorded.
; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-SAME:    ptr %p, ptr %d.p, double %x, double [[SEED:%[0-9a-z.]+]], ptr %tape)
; CHECK:         [[POS:%.*]] = fcmp ogt double %x, 0.0
; CHECK-NOT:     load
; CHECK:         br i1 {{%.*}}, label %[[TOTHEN:[^ ,]+]], label %[[TOELSE:[^ ,]+]]
; CHECK:       [[TOELSE]]:
; CHECK:         [[TWICE:%.*]] = fadd double [[SEED]], [[SEED]]
; CHECK-NEXT:    [[BS:%.*]] = fmul double {{.*}}, [[TWICE]]
; CHECK-NEXT:    [[DQ:%.*]] = getelementptr inbounds{{.*}} i8, ptr %d.p, i64 8
; CHECK-NEXT:    [[OLD1:%.*]] = load double, ptr [[DQ]]
; CHECK-NEXT:    [[NEW1:%.*]] = fadd double [[OLD1]], [[BS]]
; CHECK-NEXT:    store double [[NEW1]], ptr [[DQ]]
; CHECK:       [[TOTHEN]]:
; CHECK:         [[XS:%.*]] = fmul double %x, [[SEED]]
; CHECK-NEXT:    [[OLD0:%.*]] = load double, ptr %d.p
; CHECK-NEXT:    [[NEW0:%.*]] = fadd double [[OLD0]], [[XS]]
; CHECK-NEXT:    store double [[NEW0]], ptr %d.p

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(
; CHECK:       merge:
; CHECK-NEXT:    %r = phi double
; CHECK-NOT:     store
; CHECK:         insertvalue { double, ptr } %{{.*}}, ptr null, 1

; Three predecessors: a switch.
; CHECK-LABEL: define internal { double } @__kinase_rev_g(
; CHECK:         [[FROM:%.*]] = load i32, ptr
; CHECK-NEXT:    switch i32 [[FROM]], label %{{.*}} [
; CHECK-NEXT:      i32 1, label %{{.*}}
; CHECK-NEXT:      i32 2, label %{{.*}}
; CHECK-NEXT:    ]

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_g(
; CHECK:       merge:
; CHECK-NEXT:    %from = phi i32 [ 0, %c2 ], [ 1, %c1 ], [ 2, %c0 ]
; CHECK:         store i32 %from, ptr
