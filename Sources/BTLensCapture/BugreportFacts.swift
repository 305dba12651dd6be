import BTLensCore
import Foundation

/// What an Android bugreport's text says of the phone: its header's `Build:` and `Build
/// fingerprint:` lines and the system properties (`[ro.product.model]: [Pixel 7]`). Read from the
/// start of the text, at most `scanLimit` bytes of it, and no further than all are found.
public struct BugreportFacts: Sendable, Equatable {
    public var model: String?
    public var manufacturer: String?
    public var release: String?
    public var build: String?
    public var fingerprint: String?

    static let scanLimit: Int64 = 32 << 20
    static let longestLine = 4096

    public init() {}

    /// `Google Pixel 7`; else the fingerprint's brand and device (`google/panther`).
    public var phone: String? {
        if let model { return manufacturer.map { "\($0) \(model)" } ?? model }
        guard let f = fingerprint?.split(separator: "/"), f.count >= 3 else { return nil }
        return "\(f[0])/\(f[2].split(separator: ":").first ?? f[2])"
    }

    /// `Android 14 (UP1A.231005.007)`; else the fingerprint's (`brand/product/device:14/UP1A…/…`).
    public var os: String? {
        let parts = fingerprint?.split(separator: "/") ?? []
        let fromPrint = parts.count >= 4 ? parts[2].split(separator: ":").dropFirst().first.map(String.init) : nil
        let id = build ?? (parts.count >= 4 ? String(parts[3]) : nil)
        guard let release = release ?? fromPrint else { return id.map { "Android (\($0))" } }
        return "Android \(release)" + (id.map { " (\($0))" } ?? "")
    }

    var complete: Bool { model != nil && manufacturer != nil && release != nil && build != nil }

    mutating func line(_ s: Substring) {
        if let v = Self.value(s, after: "Build: ") { build = build ?? v }
        if let v = Self.value(s, after: "Build fingerprint: ") {
            fingerprint = fingerprint ?? v.trimmingCharacters(in: ["'"])
        }
        guard s.hasPrefix("[ro.") else { return }
        if let v = Self.property(s, "ro.product.model") { model = model ?? v }
        if let v = Self.property(s, "ro.product.manufacturer") { manufacturer = manufacturer ?? v }
        if let v = Self.property(s, "ro.build.version.release") { release = release ?? v }
    }

    private static func value(_ s: Substring, after prefix: String) -> String? {
        guard s.hasPrefix(prefix) else { return nil }
        let v = s.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        return v.isEmpty ? nil : v
    }

    /// `[name]: [value]`.
    private static func property(_ s: Substring, _ name: String) -> String? {
        guard s.hasPrefix("[\(name)]: ["), s.hasSuffix("]") else { return nil }
        let v = s.dropFirst(name.count + 5).dropLast()
        return v.isEmpty ? nil : String(v)
    }
}

extension BugreportArchive {
    /// Whether the file begins as a zip does.
    public static func isZip(path: String) -> Bool {
        let fd = OS.open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { OS.close(fd) }
        var head = [UInt8](repeating: 0, count: 4)
        return head.withUnsafeMutableBytes { OS.read(fd, $0.baseAddress, 4) } == 4 && isZipHead(head)
    }

    /// The phone's facts from the bugreport text member; nil when there is none or it says nothing.
    public func facts() -> BugreportFacts? {
        guard let name = candidates.first(where: { ($0.split(separator: "/").last ?? "").hasPrefix("bugreport") })
        else { return nil }
        let fd = OS.open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { OS.close(fd) }
        guard let member = try? ZipMember.locate(name, fd: fd, limit: BugreportFacts.scanLimit) else { return nil }
        var facts = BugreportFacts()
        var carry: [UInt8] = []
        _ = try? member.extract(from: fd, name: name, limit: BugreportFacts.scanLimit) {
            (piece: UnsafeRawBufferPointer) throws(CaptureOpenError) in
            for byte in piece {
                guard byte == 0x0a else {
                    if carry.count < BugreportFacts.longestLine { carry.append(byte) }
                    continue
                }
                if carry.last == 0x0d { carry.removeLast() }
                // Only `Build…` and `[ro.…` lines say anything.
                if carry.first == UInt8(ascii: "B") || carry.first == UInt8(ascii: "[") {
                    facts.line(Substring(String(decoding: carry, as: UTF8.self)))
                }
                carry.removeAll(keepingCapacity: true)
            }
            if facts.complete { throw .stopped }
        }
        return facts == BugreportFacts() ? nil : facts
    }
}
