// libFuzzer's driver for the targets of BTLensFuzz (built by scripts/fuzz with
// -sanitize=fuzzer -DFUZZING; the target is named by BTLENS_FUZZ_TARGET), or, in a normal build,
// a command that lists the targets, writes their seeds, and replays inputs through one.
import BTLensCore
import BTLensFuzz
import Foundation

#if FUZZING
// libFuzzer's driver, started from this executable's own main (SwiftPM names the entry point).
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

nonisolated(unsafe) private var target: FuzzTarget?

@main
struct FuzzDriver {
    static func main() {
        let name = getenv("BTLENS_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let t = FuzzTarget.named(name) else {
            FileHandle.standardError.write(
                Data("BTLENS_FUZZ_TARGET must name one of: \(FuzzTarget.all.map(\.name).joined(separator: " "))\n".utf8)
            )
            OS.exit(2)
        }
        target = t
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        OS.exit(
            LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                target?.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                return 0
            })
    }
}
#else
@main
struct FuzzCommand {
    static let usage = """
        usage: btlens-fuzz list
               btlens-fuzz seeds TARGET DIR      write the target's built-in seeds into DIR
               btlens-fuzz replay TARGET FILE…   run the target on each file (a crash is a finding)
        """

    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        switch (args.first, args.count) {
        case ("list", 1):
            for t in FuzzTarget.all {
                print("\(t.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(t.summary)")
            }
        case ("seeds", 3):
            let t = target(args[1])
            for (i, seed) in t.seeds().enumerated() {
                guard let f = OS.fopen("\(args[2])/seed-\(i)", "wb") else { fail("cannot write into \(args[2])") }
                _ = seed.withUnsafeBytes { OS.fwrite($0, f) }
                OS.fclose(f)
            }
        case ("replay", 3...):
            let t = target(args[1])
            for path in args.dropFirst(2) {
                guard let bytes = read(path) else { fail("cannot read \(path)") }
                t.run(bytes)
                print("\(t.name) \(path): ok")
            }
        default:
            fail(usage)
        }
    }

    static func target(_ name: String) -> FuzzTarget {
        guard let t = FuzzTarget.named(name) else { fail("no fuzz target \(name); btlens-fuzz list names them") }
        return t
    }

    static func read(_ path: String) -> [UInt8]? {
        guard let f = OS.fopen(path, "rb") else { return nil }
        defer { OS.fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while case let n = chunk.withUnsafeMutableBytes({ OS.fread($0, f) }), n > 0 { bytes += chunk[..<n] }
        return bytes
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        OS.exit(2)
    }
}
#endif
