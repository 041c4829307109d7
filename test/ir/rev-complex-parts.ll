; complex.h functions in the two shapes x86-64's C ABI gives them besides
; (re, im) scalar pairs. A long double complex is passed in memory (byval):
; the reverse sweep runs the model of cpowl on its arguments, which must not
; be pointers into the augmented sweep's stack, so the copy calls
; kinase.parts.cpowl with the fields as values instead, and the tape carries
; values, never the stack's addresses. A float complex is a <2 x float>
; vector: the model takes its lanes.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare x86_fp80 @__enzyme_autodiff(ptr, ...)
declare float @__enzyme_fwddiff(ptr, ...)
declare { x86_fp80, x86_fp80 } @cpowl(ptr byval({ x86_fp80, x86_fp80 }) align 16, ptr byval({ x86_fp80, x86_fp80 }) align 16)
declare <2 x float> @csinf(<2 x float>)

define internal x86_fp80 @f(x86_fp80 %x) {
  %z = alloca { x86_fp80, x86_fp80 }, align 16
  %w = alloca { x86_fp80, x86_fp80 }, align 16
  %z.im = getelementptr inbounds { x86_fp80, x86_fp80 }, ptr %z, i32 0, i32 1
  store x86_fp80 %x, ptr %z
  store x86_fp80 0xK3FFE8000000000000000, ptr %z.im
  %w.im = getelementptr inbounds { x86_fp80, x86_fp80 }, ptr %w, i32 0, i32 1
  store x86_fp80 0xK4000A000000000000000, ptr %w
  store x86_fp80 0xK00000000000000000000, ptr %w.im
  %p = call { x86_fp80, x86_fp80 } @cpowl(ptr byval({ x86_fp80, x86_fp80 }) align 16 %z, ptr byval({ x86_fp80, x86_fp80 }) align 16 %w)
  %re = extractvalue { x86_fp80, x86_fp80 } %p, 0
  ret x86_fp80 %re
}

define x86_fp80 @test_rev(x86_fp80 %x) {
  %r = call x86_fp80 (ptr, ...) @__enzyme_autodiff(ptr @f, x86_fp80 %x)
  ret x86_fp80 %r
}

define internal float @g(float %x) {
  %z0 = insertelement <2 x float> <float poison, float 2.0>, float %x, i32 0
  %s = call <2 x float> @csinf(<2 x float> %z0)
  %im = extractelement <2 x float> %s, i32 1
  ret float %im
}

define float @test_fwd(float %x, float %dx) {
  %dup = load i32, ptr @enzyme_dup
  %r = call float (ptr, ...) @__enzyme_fwddiff(ptr @g, i32 %dup, float %x, float %dx)
  ret float %r
}

; CHECK-LABEL: define internal { x86_fp80 } @__kinase_rev_f(
; CHECK-NOT:     load ptr
; CHECK:         call { { x86_fp80, x86_fp80 }, ptr } @__kinase_aug_kinase.model.kinase.parts.cpowl(x86_fp80 %x, x86_fp80 0xK3FFE8000000000000000, x86_fp80 0xK4000A000000000000000, x86_fp80 0xK00000000000000000000)

; CHECK-LABEL: define internal { x86_fp80, ptr } @__kinase_aug_f(
; CHECK:         call { x86_fp80, x86_fp80 } @kinase.parts.cpowl(x86_fp80 %x, x86_fp80 0xK3FFE8000000000000000,

; CHECK-LABEL: define internal { x86_fp80, x86_fp80 } @kinase.parts.cpowl(x86_fp80 %0, x86_fp80 %1, x86_fp80 %2, x86_fp80 %3)
; CHECK:         call { x86_fp80, x86_fp80 } @cpowl(ptr byval({ x86_fp80, x86_fp80 }) align 16 %{{.*}}, ptr byval({ x86_fp80, x86_fp80 }) align 16 %{{.*}})

; CHECK-LABEL: define internal <2 x float> @__kinase_fwd_kinase.model.csinf(
; CHECK-SAME:    <2 x float> %0, <2 x float> [[DZ:%.*]])
; CHECK-DAG:     extractelement <2 x float> %0, i64 0
; CHECK-DAG:     extractelement <2 x float> %0, i64 1
; CHECK-DAG:     extractelement <2 x float> [[DZ]], i64 0
; CHECK-DAG:     extractelement <2 x float> [[DZ]], i64 1
; CHECK:         ret <2 x float>
