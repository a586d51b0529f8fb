// Run Python under real MicroPython (the official WebAssembly port, npm
// @micropython/micropython-webassembly-pyscript) with files copied into its filesystem.
//
//   node mpy_runner.mjs <micropython.mjs> <spec.json>
//
// spec.json: {"files": {"/lib/boardfw/device.py": "/abs/path/device.py", ...},
//             "heapsize": 8388608, "code": "import mpy_harness"}
// MicroPython's output goes to stdout line by line; the exit status is 0 when the code ran
// to the end, 1 when it raised (the traceback is printed on stderr), 2 on a runner error.

import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";

async function main() {
  const [modulePath, specPath] = process.argv.slice(2);
  if (!modulePath || !specPath) {
    console.error("usage: node mpy_runner.mjs <micropython.mjs> <spec.json>");
    return 2;
  }
  const spec = JSON.parse(readFileSync(specPath, "utf8"));
  const { loadMicroPython } = await import(pathToFileURL(modulePath).href);
  const mp = await loadMicroPython({
    heapsize: spec.heapsize ?? 8 * 1024 * 1024,
    stdout: (line) => process.stdout.write(line + "\n"),
    stderr: (line) => process.stderr.write(line + "\n"),
  });
  for (const [dest, src] of Object.entries(spec.files)) {
    mp.FS.mkdirTree(dirname(dest));
    mp.FS.writeFile(dest, readFileSync(src));
  }
  try {
    mp.runPython(spec.code);
  } catch (err) {
    process.stderr.write(String(err && err.message ? err.message : err) + "\n");
    return 1;
  }
  return 0;
}

main().then(
  (status) => process.exit(status),
  (err) => {
    process.stderr.write("mpy_runner: " + String(err && err.stack ? err.stack : err) + "\n");
    process.exit(2);
  },
);
