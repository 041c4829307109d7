; Reverse mode, the tape's shape:
; - a math call outside loops (exp) is computed again in the reverse sweep,
;   not recorded;
; - the same call inside a loop (sin) is recorded, once per iteration, in a
;   growing vector;
; - a value that must be recorded outside loops (v, loaded from memory the
;   function then overwrites and reads back, so the store cannot wait for
;   the end of the reverse sweep) goes into the tape itself: that block runs
;   at most once a call;
; - the loop's iterations are not recorded: the reverse sweep computes them
;   from n (the exit test);
; - the request's caller holds the tape in a stack slot of the tape's type:
;   no allocation but the loop's vector.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.exp.f64(double)
declare double @llvm.sin.f64(double)

define internal double @f(ptr %p, i64 %n) {
entry:
  %v = load double, ptr %p
  %e = call double @llvm.exp.f64(double %v)
  %sq = fmul double %v, %v
  store double %sq, ptr %p
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ %e, %entry ], [ %t, %loop ]
  %s = call double @llvm.sin.f64(double %acc)
  %t = fmul double %s, %s
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %back = load double, ptr %p
  %r = fadd double %t, %back
  ret double %r
}

define void @test(ptr %p, ptr %dp, i64 %n) {
  call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %p, ptr %dp, i64 %n)
  ret void
}

; CHECK-LABEL: define void @test(
; CHECK:         [[SLOT:%.*]] = alloca { { ptr, i64, i64, i64 }, { double } }
; CHECK:         call { double, ptr } @__kinase_aug_f(ptr %p, ptr %dp, i64 %n, ptr [[SLOT]])
; CHECK-LABEL: define internal {{.*}} @__kinase_rev_f(
; CHECK:         call double @llvm.exp.f64(
; CHECK-LABEL: define internal {{.*}} @__kinase_aug_f(
; CHECK-SAME:    ptr [[TAPE:%[0-9]+]])
; CHECK:       entry:
; CHECK-NOT:     @calloc
; CHECK:         call void @llvm.memset.p0.i64(ptr {{.*}}[[TAPE]], i8 0, i64 40, i1 false)
; CHECK:         %v = load double, ptr %p
; CHECK-NOT:     kinase.tape.push
; CHECK:         [[FIELD:%[0-9]+]] = getelementptr inbounds{{.*}} ptr [[TAPE]]
; CHECK-NEXT:    store double %v, ptr [[FIELD]]
; CHECK:       loop:
; CHECK:         %s = call double @llvm.sin.f64(double %acc)
; CHECK:         [[REC:%.*]] = call ptr @kinase.tape.push(
; CHECK-NEXT:    store double %s, ptr [[REC]]
