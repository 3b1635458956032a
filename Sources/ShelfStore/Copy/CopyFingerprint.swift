/// A fingerprint of copied rows: SHA-256 over every copied column of every row, table by
/// table, in ID order. Two stores with the same rows in the copied columns have the same
/// fingerprint whatever their backend; a single changed byte changes it.
///
/// Each value is written with a tag and, for text, its length, so no two different row
/// sequences feed the hash the same bytes.
package struct CopyFingerprint: Sendable {
    private var hash = SHA256()

    package init() {}

    /// Feeds the start of `table`.
    package mutating func begin(_ table: CopyTable) {
        hash.update([0x54])  // "T"
        feedLength(table.name.utf8.count)
        hash.update(Array(table.name.utf8))
    }

    /// Feeds `row`.
    package mutating func add(_ row: CopyRow) {
        hash.update([0x52])  // "R"
        for value in row {
            switch value {
            case .null:
                hash.update([0])
            case .integer(let number):
                hash.update([1])
                feed(UInt64(bitPattern: number))
            case .text(let bytes):
                hash.update([2])
                feedLength(bytes.count)
                hash.update(bytes)
            }
        }
    }

    /// The fingerprint, as 64 hexadecimal digits.
    package func finalized() -> String {
        var copy = hash
        return copy.finalize().map { byte in
            let digits = Array("0123456789abcdef")
            return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
        }.joined()
    }

    private mutating func feedLength(_ count: Int) { feed(UInt64(count)) }

    private mutating func feed(_ number: UInt64) {
        hash.update((0..<8).map { UInt8(truncatingIfNeeded: number >> (56 - 8 * $0)) })
    }
}

/// SHA-256 (FIPS 180-4), streaming: `update` any number of times, then `finalize` once.
package struct SHA256: Sendable {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    package init() {
        buffer.reserveCapacity(64)
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: [UInt8]) {
        length &+= UInt64(bytes.count)
        var index = 0
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, bytes.count)
            buffer += bytes[0..<take]
            index = take
            guard buffer.count == 64 else { return }
            compress(buffer[...])
            buffer.removeAll(keepingCapacity: true)
        }
        while bytes.count - index >= 64 {
            compress(bytes[index..<index + 64])
            index += 64
        }
        buffer += bytes[index...]
    }

    /// The digest of everything added (32 bytes).
    package mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        let padding = (64 + 56 - (buffer.count + 1) % 64) % 64
        tail += [UInt8](repeating: 0, count: padding)
        tail += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
        let saved = length
        update(tail)
        length = saved
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private mutating func compress(_ block: ArraySlice<UInt8>) {
        var w = [UInt32](repeating: 0, count: 64)
        let start = block.startIndex
        for t in 0..<16 {
            w[t] =
                UInt32(block[start + 4 * t]) << 24 | UInt32(block[start + 4 * t + 1]) << 16
                | UInt32(block[start + 4 * t + 2]) << 8 | UInt32(block[start + 4 * t + 3])
        }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
        for t in 16..<64 {
            let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for t in 0..<64 {
            let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ Self.k[t] &+ w[t]
            let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }
}
