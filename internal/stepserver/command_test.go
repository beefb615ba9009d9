package stepserver

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name, env, truth string
		want             Config
		err              string
	}{
		{"tssdk over stdio", "tssdk,stdio,stop", "/tmp/t", Config{SDK: "tssdk", Transport: "stdio", Truth: "/tmp/t"}, ""},
		{"tssdk leaking, sleeping", "tssdk,http,leak,sleep", "/tmp/t", Config{SDK: "tssdk", Transport: "http", Leak: true, Sleep: true, Truth: "/tmp/t"}, ""},
		{"go sdk", "gosdk,http,leak", "/tmp/t", Config{SDK: "gosdk", Transport: "http", Leak: true, Truth: "/tmp/t"}, ""},
		{"unknown SDK names the three", "pysdk,stdio,stop", "/tmp/t", Config{}, `unknown SDK "pysdk" (gosdk, mcpgo, tssdk)`},
		{"bad mode", "tssdk,stdio,maybe", "/tmp/t", Config{}, `unknown mode "maybe"`},
		{"no truth", "tssdk,stdio,stop", "", Config{}, TruthEnv + " is not set"},
		{"bad shape", "tssdk,stdio", "/tmp/t", Config{}, `want SDK,TRANSPORT,MODE`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(Env, tc.env)
			t.Setenv(TruthEnv, tc.truth)
			c, ok, err := FromEnv()
			if !ok {
				t.Fatal("FromEnv: not set")
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("FromEnv error = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || c != tc.want {
				t.Fatalf("FromEnv = %+v, %v; want %+v", c, err, tc.want)
			}
			if c.String() != tc.env {
				t.Errorf("String() = %q, want %q", c.String(), tc.env)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	argv, err := Command(Config{SDK: "mcpgo"}, "/bin/self")
	if err != nil || len(argv) != 1 || argv[0] != "/bin/self" {
		t.Fatalf("Command(mcpgo) = %q, %v; want the binary itself", argv, err)
	}
	argv, err = Command(Config{SDK: "tssdk"}, "/bin/self")
	if missing := TSSDKMissing(); missing != nil {
		if err == nil || err.Error() != missing.Error() {
			t.Fatalf("Command(tssdk) without the SDK = %q, %v; want the error %v", argv, err, missing)
		}
		return
	}
	if err != nil || len(argv) != 3 || argv[0] != "node" || filepath.Base(argv[1]) != "stepserver.mjs" || filepath.Base(argv[2]) != "node_modules" {
		t.Fatalf("Command(tssdk) = %q, %v; want node, the script and the node_modules of .ci/tssdk", argv, err)
	}
}

func TestServeRefusesTSSDK(t *testing.T) {
	if code := Serve(Config{SDK: "tssdk", Transport: "stdio", Truth: filepath.Join(t.TempDir(), "truth")}); code != 2 {
		t.Fatalf("Serve(tssdk) = %d, want 2: node serves it", code)
	}
}
