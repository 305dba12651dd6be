/// Copies the few bytes of a name or a number into an output buffer: two overlapping moves of a
/// word (4 to 16 bytes) or a half-word (2 or 3), where a call to memmove costs more than the copy.
/// The JSONL writer and the timeline's line builder copy most of their pieces through it.
public enum ShortCopy {
    @inlinable @inline(__always)
    public static func copy(_ bytes: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) {
        guard let from = bytes.baseAddress else { return }
        let n = bytes.count
        let source = UnsafeRawPointer(from)
        let target = UnsafeMutableRawPointer(out)
        if n >= 8 && n <= 16 {
            target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            target.storeBytes(
                of: source.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self), toByteOffset: n - 8, as: UInt64.self)
        } else if n >= 4 && n < 8 {
            target.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
            target.storeBytes(
                of: source.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self), toByteOffset: n - 4, as: UInt32.self)
        } else if n >= 2 && n < 4 {
            target.storeBytes(of: source.loadUnaligned(as: UInt16.self), as: UInt16.self)
            target.storeBytes(
                of: source.loadUnaligned(fromByteOffset: n - 2, as: UInt16.self), toByteOffset: n - 2, as: UInt16.self)
        } else {
            out.update(from: from, count: n)
        }
    }
}
