; A virtual call (its callee loaded from a constant offset into the
; vtable its object points to) is compared only with the functions some
; vtable holds at that slot past an address point, and with the functions
; of its type whose address is taken other than by vtables (@hook, stored
; in a global). Slot 1 here: the `scale` members, not the `reset` ones at
; slot 0, which only vtables hold. The comparisons with the address in the
; derivative take the address nowhere: a second request is no different.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@_ZTV1A = internal unnamed_addr constant { [4 x ptr] } { [4 x ptr] [ptr null, ptr null, ptr @_ZN1A5resetEv, ptr @_ZN1A5scaleEv] }
@_ZTV1B = internal unnamed_addr constant { [4 x ptr] } { [4 x ptr] [ptr null, ptr null, ptr @_ZN1B5resetEv, ptr @_ZN1B5scaleEv] }
@hooks = global ptr @hook
declare double @__enzyme_fwddiff(ptr, ...)

define internal void @_ZN1A5resetEv(ptr %this) {
  store double 0.0, ptr %this
  ret void
}

define internal void @_ZN1B5resetEv(ptr %this) {
  store double 1.0, ptr %this
  ret void
}

define internal void @_ZN1A5scaleEv(ptr %this) {
  %p = getelementptr inbounds i8, ptr %this, i64 8
  %v = load double, ptr %p
  %w = fmul double %v, 2.0
  store double %w, ptr %p
  ret void
}

define internal void @_ZN1B5scaleEv(ptr %this) {
  %p = getelementptr inbounds i8, ptr %this, i64 8
  %v = load double, ptr %p
  %w = fmul double %v, %v
  store double %w, ptr %p
  ret void
}

define internal void @hook(ptr %this) {
  ret void
}

; obj->scale(), then the value it left
define internal double @call_scale(ptr %obj) {
  %vtable = load ptr, ptr %obj
  %slot = getelementptr inbounds i8, ptr %vtable, i64 8
  %fn = load ptr, ptr %slot
  call void %fn(ptr %obj)
  %p = getelementptr inbounds i8, ptr %obj, i64 8
  %v = load double, ptr %p
  ret double %v
}

define double @test(ptr %o, ptr %do) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @call_scale, ptr @enzyme_dup, ptr %o, ptr %do)
  %e = call double (ptr, ...) @__enzyme_fwddiff(ptr @call_scale, ptr @enzyme_dup, ptr %o, ptr %do)
  %s = fadd double %d, %e
  ret double %s
}

; CHECK-LABEL: define internal {{.*}} @__kinase_fwd_call_scale(
; CHECK-NOT: reset
; CHECK: icmp eq ptr %fn, @_ZN1A5scaleEv
; CHECK-NOT: reset
; CHECK: icmp eq ptr %fn, @_ZN1B5scaleEv
; CHECK-NOT: reset
; CHECK: icmp eq ptr %fn, @hook
; CHECK-NOT: reset
; CHECK: ret
