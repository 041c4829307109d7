; A loop with no adjoint work in it (an integer generator skipped ahead, as
; curand_init does) is stepped over by the reverse sweep: f's reverse goes
; from the use of the generator's state straight to the entry, recording the
; state once, where walking the loop back recorded the way each iteration
; went (in a kernel, more records than the device heap holds). g's loop
; calls a function with effects: its reverse keeps the loop.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)
declare void @tick()

define internal double @f(double %x, i32 %skip) {
entry:
  br label %skip.head

skip.head:
  %s = phi i32 [ 12345, %entry ], [ %s.next, %skip.body ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %skip.body ]
  %more = icmp ult i32 %i, %skip
  br i1 %more, label %skip.body, label %done

skip.body:
  %odd = and i32 %s, 1
  %isodd = icmp ne i32 %odd, 0
  %t = mul i32 %s, 1664525
  %u = select i1 %isodd, i32 %t, i32 %s
  %s.next = add i32 %u, 1013904223
  %i.next = add i32 %i, 1
  br label %skip.head

done:
  %z = uitofp i32 %s to double
  %y = fmul double %x, %z
  %y2 = fmul double %y, %x
  ret double %y2
}

define internal double @g(double %x, i32 %n) {
entry:
  br label %head

head:
  %i = phi i32 [ 0, %entry ], [ %i.next, %body ]
  %more = icmp ult i32 %i, %n
  br i1 %more, label %body, label %done

body:
  call void @tick()
  %i.next = add i32 %i, 1
  br label %head

done:
  %y = fmul double %x, %x
  ret double %y
}

define double @df(double %x, i32 %skip) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, ptr @enzyme_const, i32 %skip)
  ret double %r
}

define double @dg(double %x, i32 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @g, double %x, ptr @enzyme_const, i32 %n)
  ret double %r
}

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-NEXT: rev.entry:
; CHECK-NEXT: [[S:%[0-9]+]] = load i32, ptr %tape
; CHECK-NEXT: uitofp i32 [[S]] to double
; CHECK-NOT: br
; CHECK: ret { double }

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(
; CHECK-NOT: kinase.tape.push
; CHECK: done:
; CHECK: store i32 %s, ptr %0
; CHECK: ret

; CHECK-LABEL: define internal { double } @__kinase_rev_g(
; CHECK: [[IT:%iteration[.0-9]*]] = phi i64
; CHECK: icmp eq i64 [[IT]], 0
; CHECK: br i1
; CHECK: ret { double }
