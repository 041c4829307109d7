; Forward mode, C's default promotions: __enzyme_fwddiff is variadic, so a
; float argument and its tangent arrive as double. The request converts them
; back to the parameter type (fptrunc) and the float result to the declared
; double (fpext).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

define internal float @f(float %x) {
  %p = fmul float %x, %x
  ret float %p
}

define double @test(double %x, double %dx) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx)
  ret double %r
}

; CHECK-LABEL: define double @test(double %x, double %dx)
; CHECK-DAG:     [[X:%.*]] = fptrunc double %x to float
; CHECK-DAG:     [[DX:%.*]] = fptrunc double %dx to float
; CHECK:         [[T:%.*]] = call float @__kinase_fwd_f(float [[X]], float [[DX]])
; CHECK-NEXT:    [[R:%.*]] = fpext float [[T]] to double
; CHECK-NEXT:    ret double [[R]]

; CHECK-LABEL: define internal float @__kinase_fwd_f(float %x, float %d.x)
; CHECK-NEXT:    [[A:%.*]] = fmul float %x, %d.x
; CHECK-NEXT:    [[B:%.*]] = fadd float [[A]], [[A]]
; CHECK-NEXT:    ret float [[B]]
