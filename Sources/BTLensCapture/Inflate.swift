import CBTLensZlib

/// zlib decompression with an output limit (a hostile stream cannot make btlens use unbounded memory).
enum Inflate {
    enum Failure: Error {
        case corrupt(String)
        case tooLarge(Int)
    }

    static func zlib(_ input: ArraySlice<UInt8>, limit: Int) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .corrupt("zlib cannot start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var status = Z_OK
        input.withUnsafeBufferPointer { inBuffer in
            // zlib only reads its input (its `z_const` is not defined in this build).
            stream.next_in = inBuffer.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            stream.avail_in = UInt32(inBuffer.count)
            while status == Z_OK {
                chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: out[0..<out.count - Int(stream.avail_out)])
                }
                if output.count > limit { status = Z_MEM_ERROR }
                if status == Z_BUF_ERROR && stream.avail_in == 0 { break }
            }
        }
        if output.count > limit { throw .tooLarge(limit) }
        guard status == Z_STREAM_END else {
            throw .corrupt(
                stream.msg.map { String(cString: $0) } ?? "zlib status \(status) after \(output.count) bytes")
        }
        return output
    }
}
