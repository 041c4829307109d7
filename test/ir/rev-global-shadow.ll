; Reverse mode, globals: @state is written (by @fill), so it gets a
; zero-initialised shadow that carries the adjoint from @drain's reverse to
; @fill's; @param is only read, so it gets none and its loads no reverse
; code. The request clears @state's shadow before it runs.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@state = internal global [2 x double] zeroinitializer
@param = internal global double 3.0
declare double @__enzyme_autodiff(ptr, ...)

; CHECK: @__kinase_shadow_state = internal global [2 x double] zeroinitializer, align 8
; CHECK-NOT: @__kinase_shadow_param

define internal void @fill(double %x) noinline {
  %p = load double, ptr @param
  %v = fmul double %x, %p
  store double %v, ptr @state
  %w = fmul double %x, %x
  store double %w, ptr getelementptr inbounds (i8, ptr @state, i64 8)
  ret void
}

define internal double @drain() noinline {
  %a = load double, ptr @state
  %b = load double, ptr getelementptr inbounds (i8, ptr @state, i64 8)
  %s = fmul double %a, %b
  ret double %s
}

define internal double @f(double %x) {
  call void @fill(double %x)
  %r = call double @drain()
  ret double %r
}

define double @test(double %x) {
; CHECK-LABEL: define double @test(
; CHECK: call void @llvm.memset.p0.i64(ptr align 8 @__kinase_shadow_state, i8 0, i64 16, i1 false)
; CHECK-NEXT: call {{.*}} @__kinase_aug_f(
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}

; @fill's reverse reads the adjoint @drain's reverse accumulated, and
; consumes it.
; CHECK-LABEL: define internal {{.*}} @__kinase_rev_fill(
; CHECK: load double, ptr getelementptr inbounds nuw (i8, ptr @__kinase_shadow_state, i64 8)
; CHECK: store double 0.000000e+00, ptr getelementptr inbounds nuw (i8, ptr @__kinase_shadow_state, i64 8)
; CHECK-LABEL: define internal {{.*}} @__kinase_aug_fill(
; CHECK-LABEL: define internal {{.*}} @__kinase_rev_drain(
; CHECK: [[OLD:%.*]] = load double, ptr @__kinase_shadow_state
; CHECK: [[NEW:%.*]] = fadd {{.*}}[[OLD]]
; CHECK: store double [[NEW]], ptr @__kinase_shadow_state
