; Reverse mode, sin: the reverse sweep multiplies the seed by cos(x),
; computed from the argument there; sin(x) itself is not needed by the
; reverse sweep, and nothing is recorded.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.sin.f64(double)

define internal double @f(double %x) {
  %s = call double @llvm.sin.f64(double %x)
  ret double %s
}

; An unmarked double is enzyme_out.
define double @test(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-SAME:    double %x, double [[SEED:%[0-9a-z.]+]], ptr %tape)
; CHECK-NOT:     @llvm.sin
; CHECK:         [[C:%.*]] = call double @llvm.cos.f64(double %x)
; CHECK-NEXT:    [[D:%.*]] = fmul double [[C]], [[SEED]]
; CHECK-NOT:     @llvm.sin
; CHECK:         ret { double }

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(double %x{{.*}})
; CHECK:         %s = call double @llvm.sin.f64(double %x)
; CHECK-NOT:     kinase.tape.push
; CHECK:         ret { double, ptr }
