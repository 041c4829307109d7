; Host code: a pointer loaded from memory has the shadow its slot's shadow
; holds, which is null where a Const pointer was stored (a closure capturing
; a Const pointer by reference). Its tangent is read from zeros there
; (lib/core/nullshadow.c), as it is below the first page (an address a
; callee computed from a null shadow, `&node->second`, is missing too); a
; pointer passed as an argument is not guarded.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
declare double @__enzyme_fwddiff(ptr, ...)

; s = (*slot)[0] * x[0]
define internal double @f(ptr %slot, ptr %x) {
  %p = load ptr, ptr %slot
  %a = load double, ptr %p
  %b = load double, ptr %x
  %s = fmul double %a, %b
  ret double %s
}

define double @test(ptr %slot, ptr %dslot, ptr %x, ptr %dx) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %d, ptr %slot, ptr %dslot, i32 %d, ptr %x, ptr %dx)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(
; CHECK: [[SHADOW:%.*]] = load ptr, ptr %d.slot
; CHECK: [[MISSING:%.*]] = icmp ult ptr [[SHADOW]], inttoptr (i64 4096 to ptr)
; CHECK: [[AT:%.*]] = select i1 [[MISSING]], ptr @kinase.null_shadow.zero, ptr [[SHADOW]]
; CHECK: load double, ptr [[AT]]
; CHECK-NOT: select
; CHECK: load double, ptr %d.x
