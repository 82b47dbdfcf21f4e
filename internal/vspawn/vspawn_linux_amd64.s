#include "textflag.h"

// func spawn(stackTop uintptr, flags uintptr, ops *op, nops int, failed *[2]int64) (pid int64)
//
// clone(flags | CLONE_VM | CLONE_VFORK) onto stackTop. The child runs
// ops in order: op.a[op.refArg] takes op[op.refSrc].res first when
// refArg >= 0; the result goes to op.res; a failure (-4095..-1) of an op
// that is not optional writes its index + 1 and the result to failed and
// exits 127; an op whose optional is 1 cannot fail, one whose optional is
// negative does not fail with that result (-errno). An op whose optional
// is 2 is a clone: the task it returns a pid to (the one that called it)
// exits 0 there. An op whose optional is 3 is no call: it stores the low
// 32 bits of op[refSrc].res at the address a[0]; one whose optional is 4
// loads the 32 bits at a[0], sign-extended, as its res. The last op is execve:
// returning from it, or running out of ops, is a failure too. op is 11
// words: nr, a[6], refArg, refSrc, optional, res.
TEXT ·spawn(SB),NOSPLIT|NOFRAME,$0-48
	MOVQ	stackTop+0(FP), SI
	MOVQ	flags+8(FP), DI
	MOVQ	ops+16(FP), R12
	MOVQ	nops+24(FP), R13
	MOVQ	failed+32(FP), R15
	XORQ	DX, DX		// parent_tid
	XORQ	R10, R10	// child_tid
	XORQ	R8, R8		// tls
	MOVQ	$56, AX		// SYS_clone
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	MOVQ	AX, pid+40(FP)	// the child's pid, or -errno
	RET

child:
	XORQ	R14, R14
loop:
	CMPQ	R14, R13
	JGE	ranout
	MOVQ	R14, BX
	IMULQ	$88, BX
	ADDQ	R12, BX		// BX = &ops[i]
	MOVQ	72(BX), CX	// optional
	CMPQ	CX, $3
	JNE	notstore
	MOVQ	64(BX), DX	// refSrc
	IMULQ	$88, DX
	ADDQ	R12, DX
	MOVQ	80(DX), DX	// ops[refSrc].res
	MOVQ	8(BX), DI	// a[0]
	MOVL	DX, 0(DI)
	JMP	next
notstore:
	CMPQ	CX, $4
	JNE	notload
	MOVQ	8(BX), DI	// a[0]
	MOVLQSX	0(DI), DX
	MOVQ	DX, 80(BX)	// res
	JMP	next
notload:
	MOVQ	56(BX), CX	// refArg
	CMPQ	CX, $0
	JLT	call
	MOVQ	64(BX), DX	// refSrc
	IMULQ	$88, DX
	ADDQ	R12, DX
	MOVQ	80(DX), DX	// ops[refSrc].res
	MOVQ	DX, 8(BX)(CX*8)
call:
	MOVQ	8(BX), DI
	MOVQ	16(BX), SI
	MOVQ	24(BX), DX
	MOVQ	32(BX), R10
	MOVQ	40(BX), R8
	MOVQ	48(BX), R9
	MOVQ	0(BX), AX
	SYSCALL
	MOVQ	AX, 80(BX)
	MOVQ	72(BX), CX	// optional
	CMPQ	CX, $2
	JNE	checked
	CMPQ	AX, $0
	JGT	done		// the clone's caller: its child goes on
checked:
	CMPQ	AX, $-4095
	JLT	next		// not an error (unsigned results are never this large)
	CMPQ	AX, $0
	JGE	next
	CMPQ	CX, $1		// optional: its failure does not matter
	JEQ	next
	CMPQ	CX, AX		// this failure does not matter
	JEQ	next
	LEAQ	1(R14), CX
	MOVQ	CX, 0(R15)
	MOVQ	AX, 8(R15)
	JMP	exit
next:
	INCQ	R14
	JMP	loop
ranout:
	MOVQ	R13, 0(R15)	// the last op (execve) returned
	MOVQ	$-8, 8(R15)	// ENOEXEC
	JMP	exit
done:
	XORQ	DI, DI		// exit(0): this process only
	MOVQ	$60, AX
	SYSCALL
	JMP	done
exit:
	MOVQ	$127, DI	// exit(127): this process only
	MOVQ	$60, AX
	SYSCALL
	JMP	exit
