internal import CSHA256

/// A fingerprint of copied rows: SHA-256 over every copied column of every row, table by
/// table, in ID order. Two stores with the same rows in the copied columns have the same
/// fingerprint whatever their backend; a single changed byte changes it.
///
/// Each value is written with a tag and, for text, its length, so no two different row
/// sequences feed the hash the same bytes.
package struct CopyFingerprint: Sendable {
    private var hash = SHA256()
    /// Bytes not yet hashed: values are encoded here and hashed a block of many rows at a
    /// time (one call per value cost more than the hash itself).
    private var pending: [UInt8] = []

    package init() {
        pending.reserveCapacity(Self.batch + 4096)
    }

    /// How many encoded bytes are gathered before they are hashed.
    private static let batch = 1 << 16

    /// Feeds the start of `table`.
    package mutating func begin(_ table: CopyTable) {
        pending.append(0x54)  // "T"
        feed(UInt64(table.name.utf8.count))
        pending.append(contentsOf: table.name.utf8)
    }

    /// Feeds `row`.
    package mutating func add(_ row: CopyRow) {
        pending.append(0x52)  // "R"
        for value in row {
            switch value {
            case .null:
                pending.append(0)
            case .integer(let number):
                pending.append(1)
                feed(UInt64(bitPattern: number))
            case .text(let bytes):
                pending.append(2)
                feed(UInt64(bytes.count))
                pending.append(contentsOf: bytes)
            }
        }
        if pending.count >= Self.batch { flush() }
    }

    /// The fingerprint, as 64 hexadecimal digits.
    package func finalized() -> String {
        var copy = self
        copy.flush()
        return copy.hash.finalize().map { byte in
            let digits = Array("0123456789abcdef")
            return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
        }.joined()
    }

    private mutating func flush() {
        pending.withUnsafeBytes { hash.update($0) }
        pending.removeAll(keepingCapacity: true)
    }

    /// `number` as 8 bytes, most significant first.
    private mutating func feed(_ number: UInt64) {
        withUnsafeBytes(of: number.bigEndian) { pending.append(contentsOf: $0) }
    }
}

/// SHA-256 (FIPS 180-4), streaming: `update` any number of times, then `finalize` once.
/// The work is done in C (`CSHA256`): unoptimized Swift, as in a debug build, hashed so slowly
/// that fingerprinting both sides was most of a copy's time.
package struct SHA256: Sendable {
    private var context = shelf_sha256_context()

    package init() {
        shelf_sha256_init(&context)
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        shelf_sha256_update(&context, base, bytes.count)
    }

    /// The digest of everything added (32 bytes).
    package mutating func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { digest, count in
            shelf_sha256_final(&context, digest.baseAddress)
            count = 32
        }
    }
}
