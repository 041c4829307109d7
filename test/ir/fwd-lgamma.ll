; Forward mode, lgamma and tgamma: lgamma' is digamma, which libm lacks;
; Kinase emits it once per module and type as kinase.digamma.<type>
; (reflection below 0, recurrence up to 10, asymptotic series), and
; tgamma' = tgamma digamma. Floats go through the double helper.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare float @__enzyme_fwddiff_float(ptr, ...)
declare double @lgamma(double)
declare double @tgamma(double)
declare float @lgammaf(float)

define internal double @f(double %x) {
  %l = call double @lgamma(double %x)
  ret double %l
}

define internal double @g(double %x) {
  %t = call double @tgamma(double %x)
  ret double %t
}

define internal float @h(float %x) {
  %l = call float @lgammaf(float %x)
  ret float %l
}

define double @test(double %x, double %dx, float %y) {
  %dup = load i32, ptr @enzyme_dup
  %a = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx)
  %b = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, i32 %dup, double %x, double %dx)
  %c = call float (ptr, ...) @__enzyme_fwddiff_float(ptr @h, i32 %dup, float %y, float 1.0)
  %r = fadd double %a, %b
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x)
; CHECK-NEXT:    %l = call double @lgamma(double %x)
; CHECK-NEXT:    [[PSI:%.*]] = call double @kinase.digamma.double(double %x)
; CHECK-NEXT:    [[T:%.*]] = fmul double [[PSI]], %d.x
; CHECK-NEXT:    ret double [[T]]

; CHECK-LABEL: define internal double @__kinase_fwd_g(double %x, double %d.x)
; CHECK-NEXT:    %t = call double @tgamma(double %x)
; CHECK-NEXT:    [[PSI:%.*]] = call double @kinase.digamma.double(double %x)
; CHECK-NEXT:    [[D:%.*]] = fmul double %t, [[PSI]]
; CHECK-NEXT:    [[T:%.*]] = fmul double [[D]], %d.x
; CHECK-NEXT:    ret double [[T]]

; CHECK-LABEL: define internal float @__kinase_fwd_h(float %x, float %d.x)
; CHECK:         [[WIDE:%.*]] = fpext float %x to double
; CHECK-NEXT:    [[PSI:%.*]] = call double @kinase.digamma.double(double [[WIDE]])
; CHECK-NEXT:    [[NARROW:%.*]] = fptrunc double [[PSI]] to float
; CHECK-NOT:   @kinase.digamma.float

; One helper, pure, for all three.
; CHECK:       ; Function Attrs: nounwind willreturn memory(none)
; CHECK-NEXT:  define internal double @kinase.digamma.double(double %0)
; CHECK:       entry:
; CHECK:         %negative = fcmp olt double %0, 0.000000e+00
; CHECK:         br i1 %negative, label %reflect, label %shift
; CHECK:       reflect:
; CHECK:         call double @llvm.rint.f64(double %0)
; CHECK:         call double @llvm.tan.f64(
; CHECK:       shift:
; CHECK-NEXT:    %z = phi double [ %start, %entry ], [ %start, %reflect ], [ {{%.*}}, %step ]
; CHECK-NEXT:    %acc = phi double
; CHECK-NEXT:    [[SMALL:%.*]] = fcmp olt double %z, 1.000000e+01
; CHECK-NEXT:    br i1 [[SMALL]], label %step, label %series
; CHECK:       series:
; CHECK:         call double @llvm.log.f64(double %z)
; CHECK:         ret double
; CHECK-NOT:   define internal {{.*}}@kinase.digamma
