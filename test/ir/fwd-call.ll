; Forward mode, a call of another function of the module: it becomes a call
; of that function's forward derivative, which returns {primal, tangent};
; the callee's activity follows the arguments (g's second argument is the
; enzyme_const c, so it has no shadow).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

define internal double @g(double %a, double %b) {
  %p = fmul double %a, %b
  ret double %p
}

; g(x, c) + x
define internal double @f(double %x, double %c) {
  %y = call double @g(double %x, double %c)
  %z = fadd double %y, %x
  ret double %z
}

define double @test(double %x, double %dx, double %c) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx, i32 %const, double %c)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x, double %c)
; CHECK-NEXT:    [[PAIR:%.*]] = call { double, double } @__kinase_fwd_g(double %x, double %d.x, double %c)
; CHECK-NEXT:    [[DY:%.*]] = extractvalue { double, double } [[PAIR]], 1
; CHECK-NEXT:    [[T:%.*]] = fadd double [[DY]], %d.x
; CHECK-NEXT:    ret double [[T]]

; CHECK-LABEL: define internal { double, double } @__kinase_fwd_g(double %a, double %d.a, double %b)
; CHECK-NEXT:    %p = fmul double %a, %b
; CHECK-NEXT:    [[DP:%.*]] = fmul double %b, %d.a
; CHECK-NEXT:    [[P1:%.*]] = insertvalue { double, double } {{undef|poison}}, double %p, 0
; CHECK-NEXT:    [[P2:%.*]] = insertvalue { double, double } [[P1]], double [[DP]], 1
; CHECK-NEXT:    ret { double, double } [[P2]]
