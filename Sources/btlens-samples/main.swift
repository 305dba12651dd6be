// Writes the sample captures of Captures/ from their scripts in BTLensTestSupport, with
// `--benchmark FILE MEGABYTES [FRAMING DIR]` the benchmark's large capture (scripts/benchmark; with a
// framing, its Aurora frames in that framing and the definitions that read them written to the
// existing folder DIR), or with
// `--benchmark-sniffer FILE MEGABYTES [encrypted]` its LE sessions as a sniffer hears them (pcap, LINKTYPE
// 256; encrypted with the specification's sample LTK), with
// `--hostile DIR` the hostile captures (docs/hostile-captures.md), with
// `--mutants FORM SEED FIRST COUNT DIR` seeded mutants of the samples in one form (scripts/mutate).
import BTLensCore
import BTLensTestSupport
import Foundation

func create(_ path: String) -> UnsafeMutablePointer<FILE> {
    guard let f = OS.fopen(path, "wb") else {
        print("btlens-samples: cannot write \(path)")
        OS.exit(1)
    }
    return f
}

/// The shipped definitions, aurora-headphones.yaml's framing replaced by `framing`'s.
func writeDefinitions(_ framing: BenchmarkFraming, to folder: String) {
    let shipped = packageRoot.appendingPathComponent("Dissectors")
    guard
        let aurora = try? String(contentsOf: shipped.appendingPathComponent("aurora-headphones.yaml"), encoding: .utf8),
        let lamp = try? String(contentsOf: shipped.appendingPathComponent("lawaken-lamp.yaml"), encoding: .utf8)
    else {
        print("btlens-samples: cannot read \(shipped.path)")
        OS.exit(1)
    }
    for (file, text) in [("aurora-headphones.yaml", framing.definition(aurora: aurora)), ("lawaken-lamp.yaml", lamp)] {
        let f = create(folder + "/" + file)
        _ = Array(text.utf8).withUnsafeBytes { OS.fwrite($0, f) }
        OS.fclose(f)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--benchmark", arguments.count == 3 || arguments.count == 5, let megabytes = Int(arguments[2]) {
    var framing: BenchmarkFraming?
    if arguments.count == 5 {
        guard let named = BenchmarkFraming(rawValue: arguments[3]) else {
            print("btlens-samples: framings: \(BenchmarkFraming.allCases.map(\.rawValue).joined(separator: " "))")
            OS.exit(2)
        }
        framing = named
        writeDefinitions(named, to: arguments[4])
    }
    let f = create(arguments[1])
    let records = BenchmarkCapture.generate(bytes: megabytes * 1_000_000, framing: framing) { bytes in
        _ = bytes.withUnsafeBytes { OS.fwrite($0, f) }
    }
    OS.fclose(f)
    print("\(arguments[1]): \(records) records")
    OS.exit(0)
}
if arguments.first == "--benchmark-sniffer", arguments.count == 3 || arguments.count == 4,
    let megabytes = Int(arguments[2])
{
    let f = create(arguments[1])
    let encrypted = arguments.count == 4 && arguments[3] == "encrypted"
    let records = SnifferBenchmark.generate(bytes: megabytes * 1_000_000, encrypted: encrypted) { bytes in
        _ = bytes.withUnsafeBytes { OS.fwrite($0, f) }
    }
    OS.fclose(f)
    print("\(arguments[1]): \(records) records")
    OS.exit(0)
}
if arguments.first == "--hostile", arguments.count == 2 {
    for c in HostileCaptures.all() {
        let path = arguments[1] + "/" + c.file
        let f = create(path)
        _ = c.bytes.withUnsafeBytes { OS.fwrite($0, f) }
        OS.fclose(f)
        print("\(path): \(c.bytes.count) bytes, \(c.about); expect \(c.expected.count) diagnostics")
    }
    let flood = HostileCaptures.reassemblyFlood(handles: 400)
    let f = create(arguments[1] + "/reassembly_flood.btsnoop")
    _ = flood.withUnsafeBytes { OS.fwrite($0, f) }
    OS.fclose(f)
    print(
        "\(arguments[1])/reassembly_flood.btsnoop: \(flood.count) bytes, 400 links each leaving a 65,535-byte PDU unfinished"
    )
    for d in HostileCaptures.definitions {
        let path = arguments[1] + "/" + d.file
        let f = create(path)
        _ = Array(d.text.utf8).withUnsafeBytes { OS.fwrite($0, f) }
        OS.fclose(f)
        print("\(path): \(d.about); expect \(d.error)")
    }
    OS.exit(0)
}
if arguments.first == "--mutants" {
    guard arguments.count == 6, let form = MutantForm(rawValue: arguments[1]), let seed = UInt64(arguments[2]),
        let first = Int(arguments[3]), let count = Int(arguments[4])
    else {
        print(
            "usage: btlens-samples --mutants FORM SEED FIRST COUNT DIR; forms: \(MutantForm.allCases.map(\.rawValue).joined(separator: " "))"
        )
        OS.exit(2)
    }
    let bases = form.bases
    for index in first..<first + count {
        let m = CaptureMutator.mutant(form, bases: bases, seed: seed, index: index)
        let f = create(arguments[5] + "/" + m.fileName)
        _ = m.bytes.withUnsafeBytes { OS.fwrite($0, f) }
        OS.fclose(f)
        print("\(m.fileName)\t\(m.about)")
    }
    OS.exit(0)
}
let folder = arguments.first ?? "Captures"
for sample in SampleCaptures.all {
    let path = folder + "/" + sample.file
    let f = create(path)
    let bytes = sample.session.bytes
    _ = bytes.withUnsafeBytes { OS.fwrite($0, f) }
    OS.fclose(f)
    print("\(path): \(bytes.count) bytes, \(sample.session.lastRecord) records")
}
for sample in SnifferSamples.all {
    let path = folder + "/" + sample.file
    let f = create(path)
    _ = sample.bytes.withUnsafeBytes { OS.fwrite($0, f) }
    OS.fclose(f)
    print("\(path): \(sample.bytes.count) bytes")
}
// The app's logs beside their capture, ble_app_log.btsnoop.
let logged = SampleCaptures.appLogSession()
for (file, text) in [("ble_app_log.logcat.txt", logged.logcat), ("ble_app_log.app.log", logged.appLog)] {
    let bytes = Array(text.utf8)
    let f = create(folder + "/" + file)
    _ = bytes.withUnsafeBytes { OS.fwrite($0, f) }
    OS.fclose(f)
    print("\(folder)/\(file): \(bytes.count) bytes")
}
