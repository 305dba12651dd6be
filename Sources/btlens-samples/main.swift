// Writes the sample captures of Captures/ from their scripts in BTLensTestSupport, or with
// `--benchmark FILE MEGABYTES` the benchmark's large capture (scripts/benchmark).
import BTLensTestSupport
#if canImport(Glibc)
import Glibc
#endif

func create(_ path: String) -> UnsafeMutablePointer<FILE> {
    guard let f = fopen(path, "wb") else {
        print("btlens-samples: cannot write \(path)")
        exit(1)
    }
    return f
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--benchmark", arguments.count == 3, let megabytes = Int(arguments[2]) {
    let f = create(arguments[1])
    let records = BenchmarkCapture.generate(bytes: megabytes * 1_000_000) { bytes in
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
    }
    fclose(f)
    print("\(arguments[1]): \(records) records")
    exit(0)
}
let folder = arguments.first ?? "Captures"
for sample in SampleCaptures.all {
    let path = folder + "/" + sample.file
    let f = create(path)
    let bytes = sample.session.bytes
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
    fclose(f)
    print("\(path): \(bytes.count) bytes, \(sample.session.lastRecord) records")
}
