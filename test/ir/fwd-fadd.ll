; Forward mode, fadd: the tangent of x + y is dx + dy.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

define internal double @f(double %x, double %y) {
  %s = fadd double %x, %y
  ret double %s
}

define double @test(double %x, double %dx, double %y, double %dy) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx, i32 %dup, double %y, double %dy)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x, double %y, double %d.y)
; CHECK-NEXT:    [[T:%.*]] = fadd double %d.x, %d.y
; CHECK-NEXT:    ret double [[T]]
; CHECK-NEXT:  }
