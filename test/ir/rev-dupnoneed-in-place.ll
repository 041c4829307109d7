; enzyme_dupnoneed on memory updated in place. f's `y[0] = a * x[0] + y[0]`
; reads y before it writes it, and nothing reads y after: its primal is not
; needed, so the derivative does not store it (a reverse kernel of such an
; in-place kernel rewrote it for nothing). g's loop, `y[0] *= x[k]`, reads
; in each iteration what the one before wrote: those writes stay.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dupnoneed = external global i32
@enzyme_dup = external global i32
@enzyme_out = external global i32

declare double @__enzyme_autodiff(ptr, ...)

define internal void @f(ptr %y, ptr %x, double %a) {
  %xv = load double, ptr %x
  %yv = load double, ptr %y
  %p = fmul double %a, %xv
  %s = fadd double %p, %yv
  store double %s, ptr %y
  ret void
}

define internal void @g(ptr %y, ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
  %xk = getelementptr double, ptr %x, i64 %k
  %xv = load double, ptr %xk
  %yv = load double, ptr %y
  %s = fmul double %yv, %xv
  store double %s, ptr %y
  %k1 = add i64 %k, 1
  %more = icmp slt i64 %k1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}

define double @test_f(ptr %y, ptr %dy, ptr %x, ptr %dx, double %a) {
  %n = load i32, ptr @enzyme_dupnoneed
  %d = load i32, ptr @enzyme_dup
  %o = load i32, ptr @enzyme_out
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %n, ptr %y, ptr %dy, i32 %d, ptr %x, ptr %dx, i32 %o, double %a)
  ret double %r
}

define void @test_g(ptr %y, ptr %dy, ptr %x, ptr %dx, i64 %n) {
  %nn = load i32, ptr @enzyme_dupnoneed
  %d = load i32, ptr @enzyme_dup
  call double (ptr, ...) @__enzyme_autodiff(ptr @g, i32 %nn, ptr %y, ptr %dy, i32 %d, ptr %x, ptr %dx, i64 %n)
  ret void
}

; CHECK-LABEL: define internal {{.*}} @__kinase_rev_f(
; CHECK-NOT:     store double {{.*}}, ptr %y
; CHECK:         ret
; CHECK-LABEL: define internal {{.*}} @__kinase_rev_g(
; CHECK:         store double {{.*}}, ptr %y
; CHECK:         ret
