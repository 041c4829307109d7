; The request: each __enzyme_fwddiff call is replaced by a call of the
; derivative, with the markers dropped from the arguments and their loads
; erased (one load may serve several markers); unmarked float arguments are
; dup, integers const. One derivative serves requests with the same
; activities. The marker globals are never read.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

define internal double @f(double %x, i32 %n) {
  %c = sitofp i32 %n to double
  %p = fmul double %x, %c
  ret double %p
}

define double @test(double %x, i32 %n) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %a = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double 1.0, i32 %const, i32 %n)
  %b = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 2.0, i32 %n)
  %s = fadd double %a, %b
  ret double %s
}

; CHECK-LABEL: define double @test(double %x, i32 %n)
; CHECK-NOT:     load i32, ptr @enzyme
; CHECK-NOT:     __enzyme_fwddiff
; CHECK:         [[A:%.*]] = call double @__kinase_fwd_f(double %x, double 1.000000e+00, i32 %n)
; CHECK-NEXT:    [[B:%.*]] = call double @__kinase_fwd_f(double %x, double 2.000000e+00, i32 %n)
; CHECK-NEXT:    %s = fadd double [[A]], [[B]]
; CHECK-NEXT:    ret double %s
; CHECK-NEXT:  }

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x, i32 %n)
; CHECK-NOT:   define {{.*}}@__kinase_fwd_f
