; A copy between two elements of a container (both addresses from calls,
; no type in sight) of a struct holding a double beside an int: clang's
; !tbaa.struct names each field (offset, size, access type), and the copy is
; split into one load and store per field, so that the reverse sweep moves
; the double's adjoint, where a copy of doubles and an int together was
; refused ("it must hold floats of one type").
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
declare double @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal ptr @element(ptr %base, i64 %i) {
  %at = getelementptr inbounds [16 x i8], ptr %base, i64 %i
  ret ptr %at
}

; a[1] = a[0]; return a[1].value * a[1].value
define internal double @copy_square(ptr %a) {
entry:
  %from = call ptr @element(ptr %a, i64 0)
  %to = call ptr @element(ptr %a, i64 1)
  call void @llvm.memcpy.p0.p0.i64(ptr %to, ptr %from, i64 12, i1 false), !tbaa.struct !0
  %v = load double, ptr %to, !tbaa !1
  %r = fmul double %v, %v
  ret double %r
}

define double @grad(ptr %a, ptr %da) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @copy_square, ptr @enzyme_dup, ptr %a, ptr %da)
  ret double %r
}

!0 = !{i64 0, i64 8, !1, i64 8, i64 4, !5}
!1 = !{!2, !2, i64 0}
!2 = !{!"double", !3, i64 0}
!3 = !{!"omnipotent char", !4, i64 0}
!4 = !{!"Simple C++ TBAA"}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !3, i64 0}

; The reverse sweep takes the double's adjoint out of the copy's shadow and
; adds it into the source's; no copy of bytes is reversed.
; CHECK-LABEL: define internal void @__kinase_rev_copy_square(
; CHECK-NOT: memcpy
; CHECK: store double 0.000000e+00
; CHECK: fadd double
; CHECK: ret void
; The augmented sweep copies the double and the int, each as its own type.
; CHECK-LABEL: define internal {{.*}} @__kinase_aug_copy_square(
; CHECK-NOT: memcpy
; CHECK: load double, ptr %{{.*}}, align 1
; CHECK: store double %{{.*}}, ptr %{{.*}}, align 1
; CHECK: load i32, ptr %{{.*}}, align 1
; CHECK: store i32 %{{.*}}, ptr %{{.*}}, align 1
; CHECK: ret
