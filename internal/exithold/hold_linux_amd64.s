#include "textflag.h"

// func clonehold(stackTop uintptr, pipe int32, keep int32, root *byte, masks *[2]uint64) (pid int64)
//
// With every signal blocked on the calling thread (masks[0] all set; the
// thread's mask saved in masks[1] and set again after), it clones the
// process without a new program. The child runs on stackTop with every
// signal blocked, keeps pipe as descriptor 0 and keep (if >= 0) as 1,
// closes the rest, moves to root, reads descriptor 0 until it ends, and
// exits. No Go code runs between the two masks, so the goroutine cannot
// move to another thread: the caller needs no LockOSThread, whose first
// use starts a thread of Go's (~0.2 ms).
TEXT ·clonehold(SB),NOSPLIT|NOFRAME,$0-40
	MOVQ	masks+24(FP), R9
	MOVQ	$2, DI		// rt_sigprocmask(SIG_SETMASK, &masks[0], &masks[1], 8)
	MOVQ	R9, SI
	LEAQ	8(R9), DX
	MOVQ	$8, R10
	MOVQ	$14, AX
	SYSCALL
	CMPQ	AX, $0
	JLT	failed
	MOVQ	stackTop+0(FP), SI
	MOVL	pipe+8(FP), R12
	MOVL	keep+12(FP), R13
	MOVQ	root+16(FP), BX
	MOVQ	$0x111, DI	// CLONE_VM | SIGCHLD
	XORQ	DX, DX		// parent_tid
	XORQ	R10, R10	// child_tid
	XORQ	R8, R8		// tls
	MOVQ	$56, AX		// SYS_clone
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	MOVQ	AX, pid+32(FP)	// the child's pid, or -errno
	MOVQ	$2, DI		// rt_sigprocmask(SIG_SETMASK, &masks[1], NULL, 8)
	LEAQ	8(R9), SI
	XORQ	DX, DX
	MOVQ	$8, R10
	MOVQ	$14, AX
	SYSCALL
	RET

failed:
	MOVQ	AX, pid+32(FP)
	RET

child:
	MOVLQSX	R12, DI		// dup3(pipe, 0, 0)
	XORQ	SI, SI
	XORQ	DX, DX
	MOVQ	$292, AX
	SYSCALL
	CMPQ	AX, $0
	JLT	exit
	CMPL	R13, $0
	JLT	nokeep
	MOVLQSX	R13, DI		// dup3(keep, 1, 0)
	MOVQ	$1, SI
	XORQ	DX, DX
	MOVQ	$292, AX
	SYSCALL
	CMPQ	AX, $0
	JLT	exit
	MOVQ	$2, DI		// close_range(2, ~0, 0)
	JMP	closerest
nokeep:
	MOVQ	$1, DI		// close_range(1, ~0, 0)
closerest:
	MOVL	$0xffffffff, SI
	XORQ	DX, DX
	MOVQ	$436, AX
	SYSCALL
	CMPQ	AX, $0
	JLT	exit
	MOVQ	BX, DI		// chdir(root)
	MOVQ	$80, AX
	SYSCALL
	SUBQ	$16, SP
read:
	XORQ	DI, DI		// read(0, sp, 1)
	MOVQ	SP, SI
	MOVQ	$1, DX
	XORQ	AX, AX
	SYSCALL
	CMPQ	AX, $0
	JGT	read
	CMPQ	AX, $-4		// EINTR
	JEQ	read
exit:
	XORQ	DI, DI		// exit(0): this process only
	MOVQ	$60, AX
	SYSCALL
	JMP	exit
