//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"sync"
)

// Severity bits of VkDebugUtilsMessageSeverityFlagBitsEXT.
const (
	severityWarning = 0x100
	severityError   = 0x1000
)

// messageLog collects the validation layer's messages for one instance.
type messageLog struct {
	mu     sync.Mutex
	msgs   []string
	errors []string // the error-severity ones since the last takeErrors
}

func (l *messageLog) add(severity uint32, id, msg string) {
	sev := "warning"
	if severity&severityError != 0 {
		sev = "error"
	}
	s := fmt.Sprintf("%s: [%s] %s", sev, id, msg)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, s)
	if severity&severityError != 0 {
		l.errors = append(l.errors, s)
	}
}

// take returns and clears every message.
func (l *messageLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.msgs
	l.msgs, l.errors = nil, nil
	return m
}

// takeErrors returns an error holding the error-severity messages since
// the last call, or nil.
func (l *messageLog) takeErrors(op string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errors) == 0 {
		return nil
	}
	e := l.errors
	l.errors = nil
	if len(e) == 1 {
		return fmt.Errorf("gpu: %s: validation %s", op, e[0])
	}
	return fmt.Errorf("gpu: %s: validation %s (and %d more)", op, e[0], len(e)-1)
}

// gpusimDebugMessage is the debug-utils callback (vkshim.c debug_cb); user
// is the cgo.Handle of the instance's messageLog.
//
//export gpusimDebugMessage
func gpusimDebugMessage(user C.uintptr_t, severity, types C.uint32_t, id, msg *C.char) {
	log, ok := cgo.Handle(user).Value().(*messageLog)
	if !ok {
		return
	}
	log.add(uint32(severity), C.GoString(id), C.GoString(msg))
}
