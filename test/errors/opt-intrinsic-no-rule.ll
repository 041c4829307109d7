; Through opt, without debug information: an intrinsic with no derivative
; rule (llvm.arithmetic.fence) on a differentiated value. opt exits non-zero.
; RUN: not %opt -passes=kinase -disable-output %s 2>&1 | FileCheck %s

; CHECK: error: kinase: cannot differentiate 'h': intrinsic 'llvm.arithmetic.fence.f64' has no derivative rule (compile with -g for the source line)
; CHECK-NOT: error:

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.arithmetic.fence.f64(double)

define internal double @h(double %x) {
  %y = fmul double %x, %x
  %z = call double @llvm.arithmetic.fence.f64(double %y)
  ret double %z
}

define double @test(double %x) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @h, i32 %dup, double %x, double 1.0)
  ret double %r
}
