; Reverse mode: loop-invariant factors come out of the reverse sweep's sums
; (lib/reverse/factor.c). q = sum ((x[k] - mu) * is)^2 with mu = th[0] and
; is = 1 / th[1]: the adjoints are dmu = sum -2 is^2 (x[k] - mu) dq and
; dis = sum 2 is (x[k] - mu)^2 dq. The reverse loop sums t = x[k] - mu and
; t * t alone (one subtraction, one add, one multiply-add: a hand-written
; gradient's work) and the invariant factors multiply the two sums once,
; after the loop.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.fmuladd.f64(double, double, double)

define internal double @sq(ptr %th, ptr %x, i32 %n) {
entry:
  %mu = load double, ptr %th
  %p1 = getelementptr inbounds i8, ptr %th, i64 8
  %s = load double, ptr %p1
  %is = fdiv double 1.0, %s
  %pos = icmp sgt i32 %n, 0
  br i1 %pos, label %preheader, label %exit
preheader:
  %count = zext nneg i32 %n to i64
  br label %loop
loop:
  %k = phi i64 [ 0, %preheader ], [ %k.next, %loop ]
  %q = phi double [ 0.0, %preheader ], [ %q.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %k
  %xk = load double, ptr %px
  %t = fsub double %xk, %mu
  %d = fmul double %is, %t
  %q.next = call double @llvm.fmuladd.f64(double %d, double %d, double %q)
  %k.next = add nuw nsw i64 %k, 1
  %done = icmp eq i64 %k.next, %count
  br i1 %done, label %exit, label %loop
exit:
  %r = phi double [ 0.0, %entry ], [ %q.next, %loop ]
  ret double %r
}

define void @test(ptr %th, ptr %dth, ptr %x, i32 %n) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %g = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, i32 %dup, ptr %th, ptr %dth, i32 %const, ptr %x, i32 %const, i32 %n)
  ret void
}

; CHECK-LABEL: define internal void @__kinase_rev_sq(
; In the loop: the two sums of what varies, nothing multiplied by is or the
; seed, no other arithmetic.
; CHECK:       [[LOOP:rev[0-9]+]]:
; CHECK-NEXT:    [[S1:%.*]] = phi double [ -0.000000e+00, %{{.*}} ], [ [[S1NEXT:%.*]], %[[LOOP]] ]
; CHECK-NEXT:    [[S2:%.*]] = phi double [ -0.000000e+00, %{{.*}} ], [ [[S2NEXT:%.*]], %[[LOOP]] ]
; CHECK-NEXT:    phi i64
; CHECK-NEXT:    add i64
; CHECK-NEXT:    getelementptr
; CHECK-NEXT:    [[X:%.*]] = load double, ptr
; CHECK-NEXT:    [[T:%.*]] = fsub double [[X]], [[MU:%.*]]
; CHECK-NEXT:    [[TT:%.*]] = fmul double [[T]], [[T]]
; CHECK-NEXT:    [[S2NEXT]] = fadd double [[S2]], [[TT]]
; CHECK-NEXT:    [[S1NEXT]] = fadd double [[S1]], [[T]]
; CHECK-NEXT:    icmp eq i64
; CHECK-NEXT:    br i1
; Before it, the invariant factors (2 is dq and -2 is^2 dq); after it, each
; sum times its own:
; CHECK:         [[IS:%.*]] = fdiv double 1.000000e+00
; CHECK:         [[MU]] = load double, ptr %th
; CHECK:         fmul double [[IS]], -2.000000e+00
; CHECK:         fmul double [[IS]], 2.000000e+00
; CHECK-NEXT:    [[CA:%.*]] = fmul double {{.*}}, [[SEED:%[0-9]+]]
; CHECK-NEXT:    br label %[[LOOP]]
