; Forward mode, memory through dup pointers: each load from a pointer with a
; shadow is mirrored by a load of the tangent from the shadow, and each store
; by a store of the tangent into the shadow, in the same order.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

; *q = (*p)^2
define internal void @f(ptr %p, ptr %q) {
  %v = load double, ptr %p
  %w = fmul double %v, %v
  store double %w, ptr %q
  ret void
}

define void @test(ptr %p, ptr %dp, ptr %q, ptr %dq) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, ptr %p, ptr %dp, i32 %dup, ptr %q, ptr %dq)
  ret void
}

; CHECK-LABEL: define internal void @__kinase_fwd_f(ptr %p, ptr %d.p, ptr %q, ptr %d.q)
; CHECK-NEXT:    %v = load double, ptr %p, align 8
; CHECK-NEXT:    %d.v = load double, ptr %d.p, align 8
; CHECK:         %w = fmul double %v, %v
; CHECK:         [[T:%.*]] = fadd double
; CHECK-NEXT:    store double %w, ptr %q, align 8
; CHECK-NEXT:    store double [[T]], ptr %d.q, align 8
; CHECK-NEXT:    ret void
