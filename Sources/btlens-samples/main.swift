// Writes the sample captures of Captures/ from their scripts in BTLensTestSupport.
import BTLensTestSupport
#if canImport(Glibc)
import Glibc
#endif

let folder = CommandLine.arguments.dropFirst().first ?? "Captures"
for sample in SampleCaptures.all {
    let path = folder + "/" + sample.file
    guard let f = fopen(path, "wb") else {
        print("btlens-samples: cannot write \(path)")
        exit(1)
    }
    let bytes = sample.session.bytes
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
    fclose(f)
    print("\(path): \(bytes.count) bytes, \(sample.session.lastRecord) records")
}
