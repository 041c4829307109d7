; Reverse mode, activity: a value that depends on the active input but
; reaches no output (here it only decides an integer flag written to
; enzyme_const memory) gets no reverse code: no cos, no exp, nothing recorded.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.sin.f64(double)
declare double @llvm.exp.f64(double)

define internal double @f(double %x, ptr %flag) {
  %s = call double @llvm.sin.f64(double %x)
  %e = call double @llvm.exp.f64(double %x)
  %p = fmul double %s, %e
  %pos = fcmp ogt double %p, 0.0
  %bit = zext i1 %pos to i32
  store i32 %bit, ptr %flag
  %sq = fmul double %x, %x
  ret double %sq
}

define double @test(double %x, ptr %flag) {
  %c = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 %c, ptr %flag)
  ret double %d
}

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-NOT:     @llvm.cos
; CHECK-NOT:     @llvm.exp
; CHECK:         fmul double %x, [[SEED:%[0-9a-z.]+]]
; CHECK-NOT:     @llvm.cos
; CHECK:         ret { double }
; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(
; CHECK-NOT:     kinase.tape.push
; CHECK:         ret { double, ptr }
