import ArgumentParser
import BTLensCore
import BTLensDissect
import Foundation

/// `--ltk` and `--keys`: the long-term keys that decrypt a sniffer capture's encrypted connections.
struct KeyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A long-term key that decrypts a sniffer capture's encrypted connections: 32 hex digits, most significant first as the Core specification writes it, optionally for one device (C0:FF:EE:00:11:22=KEY). Repeatable. Keys a pairing in the capture gives away (Just Works, a passkey, the Secure Connections debug key) are derived without it.",
            valueName: "[address=]key"))
    var ltk: [String] = []

    @Option(
        help: ArgumentHelp(
            "A file of keys: lines of [ADDRESS] KEY (# comments), or a BlueZ info file (/var/lib/bluetooth/ADAPTER/DEVICE/info). Repeatable.",
            valueName: "file"))
    var keys: [String] = []

    /// Key files are small; a larger one is not a key file.
    static let fileBytes = 1 << 20

    /// The keys, each file read once (it may be a pipe).
    func linkLayerKeys() throws -> [LinkLayerKey] {
        var all: [LinkLayerKey] = []
        for (i, text) in ltk.enumerated() {
            do throws(LinkLayerKeys.Error) {
                all.append(try LinkLayerKeys.argument(text, index: i + 1))
            } catch {
                throw ValidationError("--ltk \(text.prefix(80)): \(error.message)")
            }
        }
        for path in keys {
            let text = try Self.read(path)
            // BlueZ names a device's folder by its address.
            let folder = (path as NSString).deletingLastPathComponent
            let device = BDAddr(text: (folder as NSString).lastPathComponent)
            do throws(LinkLayerKeys.Error) {
                all += try LinkLayerKeys.read(text, name: path, device: device)
            } catch {
                throw ValidationError("--keys \(error.message)")
            }
        }
        guard all.count <= LinkLayerKeys.limit else {
            throw ValidationError("--ltk, --keys: expected at most \(LinkLayerKeys.limit) keys, found \(all.count)")
        }
        return all
    }

    /// The file's text, read once and at most `fileBytes`.
    private static func read(_ path: String) throws -> String {
        let fd = OS.open(path, O_RDONLY)
        guard fd >= 0 else { throw ValidationError("--keys \(path): cannot open: \(OS.openFailure(path, OS.errno))") }
        defer { OS.close(fd) }
        if let size = OS.regularFileSize(fd), size > fileBytes {
            throw ValidationError("--keys \(path): expected a key file of at most \(fileBytes) bytes, found \(size)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { OS.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { throw ValidationError("--keys \(path): cannot read: \(OS.openFailure(path, OS.errno))") }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > fileBytes {
                throw ValidationError("--keys \(path): expected a key file of at most \(fileBytes) bytes, found more")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
