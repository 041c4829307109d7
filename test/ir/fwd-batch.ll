; Batch forward mode (enzyme_width, 2): every varied value has two
; tangents. A partial derivative is computed once and multiplied by each
; lane's tangent; a phi gets one tangent phi per lane; a store stores each
; lane's tangent into that lane's shadow; a call of a module function calls
; its derivative of the same width, passing both lanes' tangents and
; receiving {primal, [2 x tangent]}; the result's tangents come back as
; [2 x double]. At the request, enzyme_dupv's lanes are the shadow array
; and the array one stride (16 bytes) on.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_width = external global i32
@enzyme_dupv = external global i32
@enzyme_const = external global i32

declare [2 x double] @__enzyme_fwddiff(ptr, ...)

define internal double @g(double %a) {
  %s = call double @llvm.sin.f64(double %a)
  ret double %s
}

; stores sin(x) * p[0] to *p, returns x^n
define internal double @f(double %x, ptr %p, i32 %n) {
entry:
  %v = load double, ptr %p
  %s = call double @g(double %x)
  %m = fmul double %s, %v
  store double %m, ptr %p
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 1.0, %entry ], [ %acc.next, %loop ]
  %acc.next = fmul double %acc, %x
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %acc.next
}

define [2 x double] @test(double %x, ptr %p, ptr %dp, i32 %n) {
  %width = load i32, ptr @enzyme_width
  %dupv = load i32, ptr @enzyme_dupv
  %const = load i32, ptr @enzyme_const
  %r = call [2 x double] (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %width, i32 2, double %x, double 1.0, double 2.0, i32 %dupv, i64 16, ptr %p, ptr %dp, i32 %const, i32 %n)
  ret [2 x double] %r
}

declare double @llvm.sin.f64(double)

; CHECK-LABEL: define [2 x double] @test(
; CHECK-NEXT:    [[L0:%.*]] = getelementptr i8, ptr %dp, i64 0
; CHECK-NEXT:    [[L1:%.*]] = getelementptr i8, ptr %dp, i64 16
; CHECK-NEXT:    [[R:%.*]] = call [2 x double] @__kinase_fwd2_f(double %x, double 1.000000e+00, double 2.000000e+00, ptr %p, ptr [[L0]], ptr [[L1]], i32 %n)
; CHECK-NEXT:    ret [2 x double] [[R]]

; CHECK-LABEL: define internal [2 x double] @__kinase_fwd2_f(double %x, double %d.x, double %d.x.1, ptr %p, ptr %d.p, ptr %d.p.1, i32 %n)
; CHECK:         %v = load double, ptr %p
; CHECK-NEXT:    [[DV0:%.*]] = load double, ptr %d.p,
; CHECK-NEXT:    [[DV1:%.*]] = load double, ptr %d.p.1,
; CHECK-NEXT:    [[G:%.*]] = call { double, [2 x double] } @__kinase_fwd2_g(double %x, double %d.x, double %d.x.1)
; CHECK-NEXT:    [[S:%.*]] = extractvalue { double, [2 x double] } [[G]], 0
; CHECK-NEXT:    [[DS:%.*]] = extractvalue { double, [2 x double] } [[G]], 1
; CHECK-NEXT:    [[DS0:%.*]] = extractvalue [2 x double] [[DS]], 0
; CHECK-NEXT:    [[DS1:%.*]] = extractvalue [2 x double] [[DS]], 1
; CHECK-NEXT:    %m = fmul double [[S]], %v
; CHECK-NEXT:    [[A0:%.*]] = fmul double %v, [[DS0]]
; CHECK-NEXT:    [[A1:%.*]] = fmul double %v, [[DS1]]
; CHECK-NEXT:    [[B0:%.*]] = fmul double [[S]], [[DV0]]
; CHECK-NEXT:    [[DM0:%.*]] = fadd double [[A0]], [[B0]]
; CHECK-NEXT:    [[B1:%.*]] = fmul double [[S]], [[DV1]]
; CHECK-NEXT:    [[DM1:%.*]] = fadd double [[A1]], [[B1]]
; CHECK-NEXT:    store double %m, ptr %p
; CHECK-NEXT:    store double [[DM0]], ptr %d.p,
; CHECK-NEXT:    store double [[DM1]], ptr %d.p.1,
; CHECK:       loop:
; CHECK:         %acc = phi double
; CHECK-NEXT:    [[T0:%.*]] = phi double [ 0.000000e+00, %entry ], [ [[N0:%.*]], %loop ]
; CHECK-NEXT:    [[T1:%.*]] = phi double [ 0.000000e+00, %entry ], [ [[N1:%.*]], %loop ]
; CHECK-NEXT:    %acc.next = fmul double %acc, %x
; CHECK-NEXT:    [[C0:%.*]] = fmul double %x, [[T0]]
; CHECK-NEXT:    [[C1:%.*]] = fmul double %x, [[T1]]
; CHECK-NEXT:    [[E0:%.*]] = fmul double %acc, %d.x
; CHECK-NEXT:    [[N0]] = fadd double [[C0]], [[E0]]
; CHECK-NEXT:    [[E1:%.*]] = fmul double %acc, %d.x.1
; CHECK-NEXT:    [[N1]] = fadd double [[C1]], [[E1]]
; CHECK:       exit:
; CHECK-NEXT:    [[R0:%.*]] = insertvalue [2 x double] poison, double [[N0]], 0
; CHECK-NEXT:    [[R1:%.*]] = insertvalue [2 x double] [[R0]], double [[N1]], 1
; CHECK-NEXT:    ret [2 x double] [[R1]]

; The partial cos(a) once, for both lanes.
; CHECK-LABEL: define internal { double, [2 x double] } @__kinase_fwd2_g(double %a, double %d.a, double %d.a.1)
; CHECK-NEXT:    %s = call double @llvm.sin.f64(double %a)
; CHECK-NEXT:    [[COS:%.*]] = call double @llvm.cos.f64(double %a)
; CHECK-NEXT:    [[D0:%.*]] = fmul double [[COS]], %d.a
; CHECK-NEXT:    [[D1:%.*]] = fmul double [[COS]], %d.a.1
; CHECK-NEXT:    [[P0:%.*]] = insertvalue { double, [2 x double] } poison, double %s, 0
; CHECK-NEXT:    [[L:%.*]] = insertvalue [2 x double] poison, double [[D0]], 0
; CHECK-NEXT:    [[LL:%.*]] = insertvalue [2 x double] [[L]], double [[D1]], 1
; CHECK-NEXT:    [[P1:%.*]] = insertvalue { double, [2 x double] } [[P0]], [2 x double] [[LL]], 1
; CHECK-NEXT:    ret { double, [2 x double] } [[P1]]
