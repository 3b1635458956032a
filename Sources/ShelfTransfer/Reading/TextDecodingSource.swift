/// A layer over a `ByteSource` that converts UTF-16 (LE or BE), Latin-1 or Windows-1252 text
/// to UTF-8 as it is read, holding one raw buffer whatever the input's size.
///
/// At the first thing that is not text in its encoding (a lone surrogate, an odd byte at the
/// end, a byte Windows-1252 leaves undefined, a NUL), it returns the text before it, then 0
/// as at the end, with `problem` saying what and what to do: `ByteInput` reports it at the
/// line and column it has then reached, which is where the bad character is in the text.
/// `consumed` and `size` are the underlying source's, so progress counts raw bytes.
///
/// Used by one reader at a time; not thread-safe.
final class TextDecodingSource: ByteSource {
    let base: any ByteSource
    let encoding: TextEncoding
    /// Why the text stops early, once it does.
    private(set) var problem: String?

    private let raw: UnsafeMutablePointer<UInt8>
    private let rawCapacity: Int
    private var start = 0
    private var end = 0
    private var baseEnded = false
    /// The raw byte offset of `raw[start]` in the (decompressed) input, for messages.
    private var rawOffset: Int
    /// Encoded bytes of a character that did not fit the caller's buffer.
    private var spill: (bytes: [UInt8], index: Int) = ([], 0)

    /// Decodes `pending` (raw bytes already read, from raw offset `offset`) and then the rest
    /// of `base`, as `encoding` (not UTF-8).
    init(base: any ByteSource, encoding: TextEncoding, pending: [UInt8], offset: Int, capacity: Int = 1 << 16) {
        self.base = base
        self.encoding = encoding
        rawCapacity = max(capacity, pending.count, 8)
        raw = .allocate(capacity: rawCapacity)
        raw.initialize(from: pending, count: pending.count)
        end = pending.count
        rawOffset = offset
    }

    deinit {
        raw.deallocate()
    }

    var size: Int? { base.size }
    var consumed: Int { base.consumed }

    var isGzip: Bool { base.isGzip }

    func read(into out: UnsafeMutablePointer<UInt8>, capacity: Int) throws(TransferError) -> Int {
        var written = 0
        while written < capacity, spill.index < spill.bytes.count {
            out[written] = spill.bytes[spill.index]
            written += 1
            spill.index += 1
        }
        while written == 0 {
            guard problem == nil else { return 0 }
            if end - start < 4, !baseEnded { try fill() }
            if start == end, baseEnded { return 0 }
            written = decode(into: out, capacity: capacity)
            if written == 0, problem == nil, end - start < 4, baseEnded, start < end {
                // Nothing decodable is left: a character cut short at the end.
                problem = cutShort()
            }
        }
        return written
    }

    /// Moves the undecoded bytes to the front and reads more after them.
    private func fill() throws(TransferError) {
        if start > 0 {
            raw.update(from: raw + start, count: end - start)
            end -= start
            start = 0
        }
        while end < rawCapacity {
            let read = try base.read(into: raw + end, capacity: rawCapacity - end)
            if read == 0 {
                baseEnded = true
                return
            }
            end += read
            if end - start >= 4 { return }
        }
    }

    /// Decodes whole characters into `out`; returns the bytes written (0 when the raw bytes
    /// left hold no whole character yet, or at a problem).
    private func decode(into out: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        switch encoding {
        case .utf16le: decodeUTF16(into: out, capacity: capacity, bigEndian: false)
        case .utf16be: decodeUTF16(into: out, capacity: capacity, bigEndian: true)
        case .latin1, .windows1252: decodeSingleByte(into: out, capacity: capacity)
        case .utf8: 0
        }
    }

    private func decodeUTF16(into out: UnsafeMutablePointer<UInt8>, capacity: Int, bigEndian: Bool) -> Int {
        var written = 0
        var index = start
        defer {
            rawOffset += index - start
            start = index
        }
        @inline(__always) func unit(_ at: Int) -> UInt32 {
            bigEndian ? UInt32(raw[at]) << 8 | UInt32(raw[at + 1]) : UInt32(raw[at + 1]) << 8 | UInt32(raw[at])
        }
        while end - index >= 2 {
            let first = unit(index)
            var scalar = first
            var length = 2
            if first >= 0xD800, first <= 0xDFFF {
                guard first <= 0xDBFF else {
                    problem = surrogate(first, at: index, "a low surrogate with no high one before it")
                    return written
                }
                guard end - index >= 4 else {
                    if baseEnded {
                        problem = surrogate(first, at: index, "a high surrogate cut short by the end of the file")
                    }
                    return written
                }
                let second = unit(index + 2)
                guard second >= 0xDC00, second <= 0xDFFF else {
                    problem = surrogate(first, at: index, "a high surrogate with no low one after it")
                    return written
                }
                scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                length = 4
            } else if first == 0 {
                problem = nulProblem(at: index)
                return written
            }
            guard capacity - written >= 4 || fits(scalar, capacity - written) else {
                if written == 0 { spillScalar(scalar, into: out, capacity: capacity, &written) } else { return written }
                index += length
                return written
            }
            written += Self.encode(scalar, into: out + written)
            index += length
        }
        return written
    }

    private func decodeSingleByte(into out: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        var written = 0
        var index = start
        defer {
            rawOffset += index - start
            start = index
        }
        let windows = encoding == .windows1252
        while index < end {
            let byte = raw[index]
            if byte >= 0x01, byte < 0x80 {
                guard written < capacity else { return written }
                out[written] = byte
                written += 1
                index += 1
                continue
            }
            var scalar = UInt32(byte)
            if byte == 0 {
                problem = nulProblem(at: index)
                return written
            }
            if windows, byte < 0xA0 {
                scalar = UInt32(Self.windows1252[Int(byte - 0x80)])
                guard scalar != 0 else {
                    problem =
                        "byte 0x\(Self.hex(UInt32(byte), digits: 2)) (at byte offset \(rawOffset + index - start)) "
                        + "is not a character in Windows-1252; if the file is Latin-1 (ISO 8859-1), import it with "
                        + "--encoding latin1, else find which encoding wrote it and name that with --encoding"
                    return written
                }
            }
            guard fits(scalar, capacity - written) else {
                if written == 0 {
                    spillScalar(scalar, into: out, capacity: capacity, &written)
                    index += 1
                }
                return written
            }
            written += Self.encode(scalar, into: out + written)
            index += 1
        }
        return written
    }

    @inline(__always)
    private func fits(_ scalar: UInt32, _ room: Int) -> Bool {
        room >= (scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4)
    }

    /// Writes what fits of a character into a buffer too small for it, and keeps the rest.
    private func spillScalar(
        _ scalar: UInt32, into out: UnsafeMutablePointer<UInt8>, capacity: Int, _ written: inout Int
    ) {
        var bytes = [UInt8](repeating: 0, count: 4)
        let count = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { Self.encode(scalar, into: $0) } ?? 0
        }
        bytes.removeLast(4 - count)
        while written < capacity, written < count {
            out[written] = bytes[written]
            written += 1
        }
        spill = (bytes, written)
    }

    /// Writes `scalar` (a valid Unicode scalar) as UTF-8; returns its length.
    @inline(__always)
    private static func encode(_ scalar: UInt32, into out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case ..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case ..<0x800:
            out[0] = UInt8(0xC0 | scalar >> 6)
            out[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case ..<0x10000:
            out[0] = UInt8(0xE0 | scalar >> 12)
            out[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[0] = UInt8(0xF0 | scalar >> 18)
            out[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            out[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    private var advice: String {
        "the file is not valid \(encoding.displayName); if it is in another encoding, name it with --encoding "
            + "(utf-8, utf-16le, utf-16be, latin1, windows-1252), else re-export it from the program that wrote it"
    }

    private func surrogate(_ unit: UInt32, at index: Int, _ what: String) -> String {
        "0x\(Self.hex(unit, digits: 4)) (at byte offset \(rawOffset + index - start)) is \(what); \(advice)"
    }

    private func nulProblem(at index: Int) -> String {
        "a NUL character (at byte offset \(rawOffset + index - start) of this \(encoding.displayName) file); "
            + "text holds none. Is this the file you meant, and in this encoding?"
    }

    private func cutShort() -> String {
        switch encoding {
        case .utf16le, .utf16be:
            "the file ends in the middle of a UTF-16 character (at byte offset \(rawOffset): an odd number of bytes); "
                + "it was cut short: export or copy it again"
        default: "the file ends in the middle of a character; \(advice)"
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The characters of Windows-1252's bytes 0x80–0x9F; 0 where it defines none.
    private static let windows1252: [UInt16] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]
}
