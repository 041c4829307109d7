; Enzyme's enzyme_shouldrecompute (an annotation, as kinase-cc and kinase.h
; write __attribute__((enzyme_shouldrecompute))): the reverse sweep calls
; @weight again for the value it needs rather than recording it. An
; unmarked function's result is recorded (@plain_weight), and so is a
; marked one's that writes memory (@counted_weight): calling it again
; would write again.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_const = external global i32
@calls = global i32 0
@.recompute = private unnamed_addr constant [23 x i8] c"enzyme_shouldrecompute\00", section "llvm.metadata"
@.file = private unnamed_addr constant [7 x i8] c"test.c\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @weight, ptr @.recompute, ptr @.file, i32 1, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @counted_weight, ptr @.recompute, ptr @.file, i32 2, ptr null }
], section "llvm.metadata"

declare double @__enzyme_autodiff(ptr, ...)

; 1 / (k + 1)
define double @weight(i32 %k) {
  %k1 = add i32 %k, 1
  %f = sitofp i32 %k1 to double
  %w = fdiv double 1.0, %f
  ret double %w
}

define double @plain_weight(i32 %k) {
  %w = call double @weight(i32 %k)
  ret double %w
}

define double @counted_weight(i32 %k) {
  %c = load i32, ptr @calls
  %c1 = add i32 %c, 1
  store i32 %c1, ptr @calls
  %w = call double @weight(i32 %k)
  ret double %w
}

; w(k) x^2, for each of the three
define internal double @f(double %x, i32 %k) {
  %w = call double @weight(i32 %k)
  %wx = fmul double %w, %x
  %y = fmul double %wx, %x
  ret double %y
}

define internal double @g(double %x, i32 %k) {
  %w = call double @plain_weight(i32 %k)
  %wx = fmul double %w, %x
  %y = fmul double %wx, %x
  ret double %y
}

define internal double @h(double %x, i32 %k) {
  %w = call double @counted_weight(i32 %k)
  %wx = fmul double %w, %x
  %y = fmul double %wx, %x
  ret double %y
}

define void @test(double %x, i32 %k, ptr %out) {
  %c = load i32, ptr @enzyme_const
  %df = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 %c, i32 %k)
  store double %df, ptr %out
  %dg = call double (ptr, ...) @__enzyme_autodiff(ptr @g, double %x, i32 %c, i32 %k)
  %o1 = getelementptr double, ptr %out, i64 1
  store double %dg, ptr %o1
  %dh = call double (ptr, ...) @__enzyme_autodiff(ptr @h, double %x, i32 %c, i32 %k)
  %o2 = getelementptr double, ptr %out, i64 2
  store double %dh, ptr %o2
  ret void
}

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK:         call double @weight(i32 %k)
; CHECK:         ret { double }
; Nothing left to record: the tape is null.
; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(
; CHECK:         insertvalue { double, ptr } %{{.*}}, ptr null, 1

; CHECK-LABEL: define internal { double } @__kinase_rev_g(
; CHECK-NOT:     call
; CHECK:         ret { double }

; CHECK-LABEL: define internal { double } @__kinase_rev_h(
; CHECK-NOT:     call
; CHECK:         ret { double }
