; Forward mode, jn(n, x): the integer order n comes first and has no
; tangent; d/dx = (jn(n - 1, x) - jn(n + 1, x)) / 2, each order taken as
; |k| with the sign (-1)^k when k < 0 (libdevice's jn returns NaN for a
; negative order, and n = 0 asks for order -1).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare double @jn(i32, double)

define internal double @f(i32 %n, double %x) {
  %j = call double @jn(i32 %n, double %x)
  ret double %j
}

define double @test(i32 %n, double %x, double %dx) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %const, i32 %n, i32 %dup, double %x, double %dx)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(i32 %n, double %x, double %d.x)
; CHECK-NEXT:    %j = call double @jn(i32 %n, double %x)
; CHECK-NEXT:    [[BELOW:%.*]] = add i32 %n, -1
; CHECK-NEXT:    [[BNEG:%.*]] = icmp slt i32 [[BELOW]], 0
; CHECK-NEXT:    [[BABS:%.*]] = sub i32 1, %n
; CHECK-NEXT:    [[BORDER:%.*]] = select i1 [[BNEG]], i32 [[BABS]], i32 [[BELOW]]
; CHECK-NEXT:    [[JB:%.*]] = call double @jn(i32 [[BORDER]], double %x)
; CHECK:         [[JBS:%.*]] = select i1 {{%.*}}, double {{%.*}}, double [[JB]]
; CHECK-NEXT:    [[ABOVE:%.*]] = add i32 %n, 1
; CHECK:         [[JA:%.*]] = call double @jn(i32 {{%.*}}, double %x)
; CHECK:         [[JAS:%.*]] = select i1 {{%.*}}, double {{%.*}}, double [[JA]]
; CHECK-NEXT:    [[DIFF:%.*]] = fsub double [[JBS]], [[JAS]]
; CHECK-NEXT:    [[HALF:%.*]] = fmul double [[DIFF]], 5.000000e-01
; CHECK-NEXT:    [[T:%.*]] = fmul double [[HALF]], %d.x
; CHECK-NEXT:    ret double [[T]]
