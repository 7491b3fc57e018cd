package redact_test

import (
	"fmt"

	"vigil/internal/redact"
)

func ExampleArgv() {
	fmt.Println(redact.Argv([]string{"vllm", "serve", "Qwen/Qwen3-8B", "--api-key", "sk-abcdef123456", "--hf-token=hf_abcdefghijkl"}))
	// Output: [vllm serve Qwen/Qwen3-8B --api-key *** --hf-token=***]
}

func ExampleString() {
	fmt.Println(redact.String("server_args=ServerArgs(api_key='s3cr3t-key', port=30000) via http://bob:pw@10.0.0.2/"))
	// Output: server_args=ServerArgs(api_key='***', port=30000) via http://***@10.0.0.2/
}

func ExampleRedactor() {
	r := redact.New("my-own-key-42")
	fmt.Println(r.String(`HTTP 401: {"error":"invalid key my-own-key-42"}`))
	// Output: HTTP 401: {"error":"invalid key ***"}
}
