; kinase-opt runs the transform outside clang: a request is lowered, the
; result verified and written; errors come out as diagnostics with exit 1.
; RUN: %kinase-opt %s -o - | FileCheck %s
; RUN: %kinase-opt --wrap %s -o %t.ll && FileCheck --check-prefix=WRAP %s < %t.ll
; RUN: sed -e 's/@llvm.sin.f64/@unknown/' %s > %t.bad.ll
; RUN: not %kinase-opt %t.bad.ll -o /dev/null 2>&1 | FileCheck --check-prefix=ERR %s

@enzyme_dup = external global i32
declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.sin.f64(double)

define internal double @f(double %x) {
  %s = call double @llvm.sin.f64(double %x)
  ret double %s
}

define double @test(double %x) {
  %m = load i32, ptr @enzyme_dup
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %m, double %x, double 1.0)
  ret double %d
}

; CHECK: define double @test(
; CHECK-NEXT: call double @__kinase_fwd_f(
; CHECK: define internal double @__kinase_fwd_f(
; CHECK: call double @llvm.cos.f64

; WRAP: define void @kinase.fuzz.fwd.f.0(double %0, double %1)
; WRAP: define void @kinase.fuzz.rev.f.0(double %0)
; WRAP: @__kinase_aug_f
; WRAP: @__kinase_rev_f

; ERR: error: kinase: cannot differentiate 'f': external function 'unknown' has no derivative rule
