package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// freeport NAME sets the environment variable NAME to a loopback port free
// a moment ago, for a server a script starts in the background.
func freeport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport NAME")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := ln.Addr().(*net.TCPAddr).Port
	ts.Check(ln.Close())
	ts.Setenv(args[0], strconv.Itoa(port))
}

// httppost URL CONTENT-TYPE FILE STATUS [TEXT] posts FILE to URL (retrying
// for a few seconds while nothing listens there yet) and checks that the
// answer has the status and, when given, holds TEXT.
func httppost(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 || len(args) > 5 {
		ts.Fatalf("usage: httppost URL CONTENT-TYPE FILE STATUS [TEXT]")
	}
	body, err := os.ReadFile(ts.MkAbs(args[2]))
	ts.Check(err)
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err = http.Post(args[0], args[1], bytes.NewReader(body))
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Check(err)
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	ts.Check(err)
	if strconv.Itoa(resp.StatusCode) != args[3] {
		ts.Fatalf("status %d, want %s: %s", resp.StatusCode, args[3], out)
	}
	if len(args) == 5 && !strings.Contains(string(out), args[4]) {
		ts.Fatalf("answer %q does not hold %q", out, args[4])
	}
}
