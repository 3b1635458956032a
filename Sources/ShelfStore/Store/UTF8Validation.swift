/// Whether bytes are well-formed UTF-8, checked in place: an export writes such text as it is
/// and sends only the rest through `String`, which repairs it.
package enum UTF8Validation {
    /// True when `bytes` are well-formed UTF-8 (Unicode's table 3-7: no overlong forms, no
    /// surrogates, nothing past U+10FFFF, no sequence cut short), as `String(validating:as:)`
    /// would accept them. ASCII goes eight bytes at a time.
    @inline(__always)
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 8 <= count,
                UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
                continue
            }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            let following: Int
            switch lead {
            case 0xC2...0xDF: following = 1
            case 0xE0:
                following = 2
                low = 0xA0
            case 0xED:
                following = 2
                high = 0x9F
            case 0xE1...0xEF: following = 2
            case 0xF0:
                following = 3
                low = 0x90
            case 0xF4:
                following = 3
                high = 0x8F
            case 0xF1...0xF3: following = 3
            default: return false
            }
            guard index + following < count else { return false }
            let second = base[index + 1]
            guard second >= low, second <= high else { return false }
            if following >= 2, base[index + 2] & 0xC0 != 0x80 { return false }
            if following == 3, base[index + 3] & 0xC0 != 0x80 { return false }
            index += following + 1
        }
        return true
    }

    /// True when `bytes` hold a zero byte (the NUL character, U+0000), which shelf refuses
    /// in every text (Migrations/0009). Eight bytes at a time.
    package static func containsNUL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var index = 0
        while index + 8 <= count {
            // A zero byte in the word: the classic has-zero-byte test.
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 { return true }
            index += 8
        }
        while index < count {
            if base[index] == 0 { return true }
            index += 1
        }
        return false
    }
}
