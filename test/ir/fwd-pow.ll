; Forward mode, pow: d pow(x, y) = y pow(x, y - 1) dx + pow(x, y) log(x) dy,
; the first term taken as 0 where y is 0 (x^0 is constant; no 0 * pow(0, -1)),
; the second where pow(x, y) is 0 (x = 0: no log of 0).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.pow.f64(double, double)

define internal double @f(double %x, double %y) {
  %p = call double @llvm.pow.f64(double %x, double %y)
  ret double %p
}

define double @test(double %x, double %dx, double %y, double %dy) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx, i32 %dup, double %y, double %dy)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x, double %y, double %d.y)
; CHECK:         %p = call double @llvm.pow.f64(double %x, double %y)
; CHECK:         [[YM1:%.*]] = fadd double %y, -1.000000e+00
; CHECK-NEXT:    [[CONST:%.*]] = fcmp oeq double %y, 0.000000e+00
; CHECK-NEXT:    [[POW:%.*]] = call double @llvm.pow.f64(double %x, double [[YM1]])
; CHECK-NEXT:    [[DX:%.*]] = fmul double %y, [[POW]]
; CHECK-NEXT:    [[DXSAFE:%.*]] = select i1 [[CONST]], double 0.000000e+00, double [[DX]]
; CHECK-NEXT:    [[TX:%.*]] = fmul double [[DXSAFE]], %d.x
; CHECK-NEXT:    [[ZERO:%.*]] = fcmp oeq double %p, 0.000000e+00
; CHECK-NEXT:    [[LOG:%.*]] = call double @llvm.log.f64(double %x)
; CHECK-NEXT:    [[DY:%.*]] = fmul double %p, [[LOG]]
; CHECK-NEXT:    [[SAFE:%.*]] = select i1 [[ZERO]], double 0.000000e+00, double [[DY]]
; CHECK-NEXT:    [[TY:%.*]] = fmul double [[SAFE]], %d.y
; CHECK-NEXT:    [[T:%.*]] = fadd double [[TX]], [[TY]]
; CHECK-NEXT:    ret double [[T]]
