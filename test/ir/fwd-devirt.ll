; Indirect calls: the callee is compared with the module's functions of the
; call's type whose address is taken (@square, @cube; not @unused, whose
; address is never taken), and each match is a direct call, differentiated
; as usual. Another callee keeps the indirect call, behind a stop with a
; message: its derivative is unknown.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_const = external global i32
@table = internal constant [2 x ptr] [ptr @square, ptr @cube]
declare double @__enzyme_fwddiff(ptr, ...)

define internal double @square(double %x) {
  %y = fmul double %x, %x
  ret double %y
}

define internal double @cube(double %x) {
  %s = fmul double %x, %x
  %y = fmul double %s, %x
  ret double %y
}

define internal double @unused(double %x) {
  ret double %x
}

define internal double @apply(ptr %f, double %x) {
  %y = call double %f(double %x)
  ret double %y
}

define double @test(ptr %f, double %x) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @apply, ptr @enzyme_const, ptr %f, double %x, double 1.0)
  ret double %d
}

; CHECK: @kinase.msg = {{.*}}c"kinase: the derivative of 'apply' reached an indirect call to a function that was not visible when it was compiled\0A\00"
; CHECK-LABEL: define internal {{.*}} @__kinase_fwd_apply(
; CHECK-NOT: @unused
; CHECK: icmp eq ptr %f, @square
; CHECK: call {{.*}} @__kinase_fwd_square(
; CHECK: icmp eq ptr %f, @cube
; CHECK: call {{.*}} @__kinase_fwd_cube(
; CHECK: call double %f(double %x)
; CHECK-NEXT: call i64 @write(i32 2, ptr {{.*}}@kinase.msg
; CHECK-NEXT: call void @abort()
; CHECK-NEXT: br label
