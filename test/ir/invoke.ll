; Invokes, landing pads and resume (C++ with exceptions), both modes. The
; derivatives follow the normal path: the augmented forward sweep and the
; forward derivative keep f's landing pad as f has it (its cleanup call and
; resume, not differentiated), and every call that stood for an invoke is an
; invoke again with that landing pad, the derivatives of g included. In the
; augmented sweep each invoke unwinds first to a landing pad of its own that
; releases the tape (__kinase_free_f, which frees g's tape recorded there),
; then runs f's cleanup. The reverse sweep has no landing pad, no invoke and
; no reverse of the cleanup: it runs only after the augmented sweep returned.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare i32 @__gxx_personality_v0(...)
declare void @note()
declare void @cleanup(ptr)

@enzyme_dup = external global i32

define internal double @g(double %u) {
  %q = fmul double %u, %u
  ret double %q
}

; f(x) = g(x) * x = x^3
define internal double @f(double %x) personality ptr @__gxx_personality_v0 {
entry:
  %c = invoke double @g(double %x) to label %ok unwind label %lpad
ok:
  invoke void @note() to label %done unwind label %lpad
done:
  %r = fmul double %c, %x
  ret double %r
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  call void @cleanup(ptr null)
  resume { ptr, i32 } %lp
}

define double @gradient(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}

define double @tangent(double %x) {
  %dup = load i32, ptr @enzyme_dup
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double 1.0)
  ret double %d
}

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-NOT:     {{invoke|landingpad|resume|@cleanup|@note}}
; CHECK:         call { double } @__kinase_rev_g(
; CHECK-NOT:     {{invoke|landingpad|resume|@cleanup|@note}}
; CHECK:         ret { double }

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(
; CHECK-SAME:    double %x, ptr %[[TAPE:[0-9]+]]) personality ptr @__gxx_personality_v0
; CHECK:         invoke { double, ptr } @__kinase_aug_g(double %x)
; CHECK-NEXT:      to label %[[CONT:.*]] unwind label %[[OWN1:.*]]
; CHECK:       [[CONT]]:
; What the reverse sweep needs is recorded on the normal path only.
; CHECK:         store ptr %tape
; CHECK:         invoke void @note()
; CHECK-NEXT:      to label %done unwind label %[[OWN2:.*]]
; CHECK:       [[BODY:lpad.body]]:
; CHECK-NEXT:    %[[LP:.*]] = phi { ptr, i32 }
; CHECK-NEXT:    call void @cleanup(ptr null)
; CHECK-NEXT:    resume { ptr, i32 } %[[LP]]
; CHECK:       [[OWN1]]:
; CHECK-NEXT:    landingpad { ptr, i32 }
; CHECK-NEXT:      cleanup
; CHECK-NEXT:    call void @__kinase_free_f(ptr nonnull %[[TAPE]])
; CHECK-NEXT:    br label %[[BODY]]
; CHECK:       [[OWN2]]:
; CHECK-NEXT:    landingpad { ptr, i32 }
; CHECK-NEXT:      cleanup
; CHECK-NEXT:    call void @__kinase_free_f(ptr nonnull %[[TAPE]])
; CHECK-NEXT:    br label %[[BODY]]

; The release function: g's tape, from f's record of the entry block (zero
; until that block ended). The request's tape is its caller's: not freed.
; CHECK-LABEL: define internal void @__kinase_free_f(ptr %0)
; CHECK:         icmp eq ptr %0, null
; CHECK:         %[[G:.*]] = load ptr, ptr
; CHECK-NEXT:    call void @__kinase_free_g(ptr %[[G]])
; CHECK-NOT:     call void @free
; CHECK:       {{^}$}}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x) personality ptr @__gxx_personality_v0
; CHECK:         invoke { double, double } @__kinase_fwd_g(double %x, double %d.x)
; CHECK-NEXT:      to label %ok unwind label %[[FLPAD:.*]]
; CHECK:         invoke void @note()
; CHECK-NEXT:      to label %done unwind label %[[FLPAD]]
; CHECK:       [[FLPAD]]:
; CHECK-NEXT:    %lp = landingpad { ptr, i32 }
; CHECK-NEXT:      cleanup
; CHECK-NEXT:    call void @cleanup(ptr null)
; CHECK-NEXT:    resume { ptr, i32 } %lp

; CHECK-LABEL: define internal void @__kinase_free_g(ptr %0)
; CHECK:         call void @free(ptr nonnull %0)
