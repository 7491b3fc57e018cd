package srvconfig_test

import (
	"fmt"

	"vigil/internal/srvconfig"
)

// The judge feeds every log message to a Collector and checks --expect
// after each configuration line.
func ExampleCollector() {
	exps, _ := srvconfig.ParseExpect([]string{"tp=4", "quantization=modelopt_fp4"})
	col := srvconfig.NewCollector("sglang")
	for _, line := range []string{
		"[2026-07-20 10:11:12] server_args=ServerArgs(model_path='nvidia/DeepSeek-V4-Flash-NVFP4', quantization='modelopt_fp4', tp_size=2, port=30000)",
		"[2026-07-20 10:11:14 TP0] Load weight begin. avail mem=78.58 GB",
	} {
		if col.Feed(line) == nil {
			continue
		}
		for _, o := range srvconfig.Check(col.Kind, col.Config(), exps) {
			fmt.Println(o.Status, o)
		}
	}
	fmt.Println(srvconfig.Important(col.Kind, col.Config()))
	// Output:
	// mismatch expected tp=4, server has 2
	// met quantization=modelopt_fp4 as expected
	// [{model nvidia/DeepSeek-V4-Flash-NVFP4} {quantization modelopt_fp4} {tp 2}]
}
