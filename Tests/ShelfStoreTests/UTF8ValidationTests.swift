import ShelfStore
import Testing

/// `UTF8Validation.isValid` agrees with the standard library's validation, on the edge cases of
/// Unicode's table 3-7 and on random bytes.
@Suite struct UTF8ValidationTests {
    func agrees(_ bytes: [UInt8]) -> Bool {
        let expected = String(validating: bytes, as: UTF8.self) != nil
        return bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) } == expected
    }

    @Test func edgesOfTheTable() {
        let cases: [[UInt8]] = [
            [], Array("plain ascii, longer than eight bytes".utf8), Array("café 😀 日本".utf8),
            [0x00], [0x7F], [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF],
            [0xE0, 0x9F, 0x80], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE2, 0x82], [0xF0, 0x9F, 0x98], Array("12345678".utf8) + [0xE2],
            Array("1234567".utf8) + [0xC3, 0xA9] + Array("abcdefgh".utf8), [0xC3, 0x28], [0xE2, 0x28, 0xA1],
        ]
        for bytes in cases { #expect(agrees(bytes), "\(bytes)") }
    }

    @Test func randomBytesAgree() {
        var generator = SeededRandomNumberGenerator(seed: 15)
        let alphabet: [UInt8] = [
            0x41, 0x0A, 0x00, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xFF, 0x9F, 0xA0,
        ]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...24, using: &generator)
            let bytes = (0..<count).map { _ in
                Bool.random(using: &generator)
                    ? alphabet.randomElement(using: &generator) ?? 0 : UInt8.random(in: 0...255, using: &generator)
            }
            #expect(agrees(bytes), "\(bytes)")
        }
    }
}
