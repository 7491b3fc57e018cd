package explain

import (
	"strings"
	"testing"
	"vigil/internal/logline"
)

func TestCrashBlock(t *testing.T) {
	tests := []struct {
		name string
		log  string
		end  int // index of the block's error line, -1: no block
	}{
		{"console script failing to import", `Traceback (most recent call last):
  File "/usr/local/bin/trtllm-serve", line 5, in <module>
    from tensorrt_llm.commands.serve import main
  File "/x/tensorrt_llm/__init__.py", line 36, in <module>
    import tensorrt_llm.functional as functional
ImportError: libmpi.so.40: cannot open shared object file: No such file or directory`, 5},
		{"python -m failing to import", `Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "<frozen runpy>", line 88, in _run_code
  File "/x/vllm/entrypoints/openai/api_server.py", line 20, in <module>
    import uvloop
ModuleNotFoundError: No module named 'uvloop'`, 5},
		{"python -m on an old python", `Traceback (most recent call last):
  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main
    return _run_code(code, main_globals, None,
  File "/x/sglang/launch_server.py", line 6, in <module>
    from sglang.srt.server import launch_server
ImportError: cannot import name 'launch_server' from 'sglang.srt.server'`, 5},
		{"argparse usage error", `usage: launch_server.py [-h] --model-path MODEL_PATH
                        [--port PORT]
launch_server.py: error: unrecognized arguments: --enable-reasoning`, 2},
		{"a running server's traceback", `Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "/x/sglang/launch_server.py", line 29, in <module>
    launch_server(server_args)
ImportError: cannot import name 'x'`, -1},
		{"a spawned worker failing to import", `Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/usr/lib/python3.12/multiprocessing/spawn.py", line 122, in spawn_main
ModuleNotFoundError: No module named 'flash_attn'`, -1},
		{"an import failing for another reason", `Traceback (most recent call last):
  File "/usr/local/bin/vllm", line 5, in <module>
    from vllm.entrypoints.cli.main import main
KeyboardInterrupt`, -1},
		{"usage text without an error", `usage: vllm serve [-h] MODEL
INFO 11-29 10:00:00 starting`, -1},
		{"a traceback cut short", `Traceback (most recent call last):
  File "/usr/local/bin/vllm", line 5, in <module>`, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &chunk{}
			off := int64(0)
			for _, l := range strings.Split(tt.log, "\n") {
				c.lines = append(c.lines, logline.Span{Text: l, Off: off})
				off += int64(len(l)) + 1
			}
			end, ok := c.crashBlock(0)
			if !ok {
				end = -1
			}
			if end != tt.end {
				t.Errorf("crashBlock = %d, %v; want end %d", end, ok, tt.end)
			}
		})
	}
}
