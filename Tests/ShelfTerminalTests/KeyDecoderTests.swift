import Testing

@testable import ShelfTerminal

@Suite("KeyDecoder")
struct KeyDecoderTests {
    private func decode(_ text: String) -> [InputEvent] {
        var decoder = KeyDecoder()
        return decoder.feed(Array(text.utf8)) + decoder.flush()
    }

    private func key(_ key: KeyEvent.Key, _ modifiers: KeyEvent.Modifiers = []) -> InputEvent {
        .key(KeyEvent(key, modifiers: modifiers))
    }

    static let sequences: [(String, KeyEvent)] = [
        ("\r", KeyEvent(.enter)), ("\n", KeyEvent(.enter)), ("\t", KeyEvent(.tab)),
        ("\u{1B}[Z", KeyEvent(.tab, modifiers: .shift)), ("\u{7F}", KeyEvent(.backspace)),
        ("\u{08}", KeyEvent(.backspace)), ("\u{1B}[A", KeyEvent(.up)), ("\u{1B}[B", KeyEvent(.down)),
        ("\u{1B}[C", KeyEvent(.right)), ("\u{1B}[D", KeyEvent(.left)), ("\u{1B}OA", KeyEvent(.up)),
        ("\u{1B}OD", KeyEvent(.left)), ("\u{1B}[H", KeyEvent(.home)), ("\u{1B}[F", KeyEvent(.end)),
        ("\u{1B}OH", KeyEvent(.home)), ("\u{1B}OF", KeyEvent(.end)), ("\u{1B}[1~", KeyEvent(.home)),
        ("\u{1B}[4~", KeyEvent(.end)), ("\u{1B}[7~", KeyEvent(.home)), ("\u{1B}[8~", KeyEvent(.end)),
        ("\u{1B}[5~", KeyEvent(.pageUp)), ("\u{1B}[6~", KeyEvent(.pageDown)), ("\u{1B}[2~", KeyEvent(.insert)),
        ("\u{1B}[3~", KeyEvent(.delete)), ("\u{1B}OP", KeyEvent(.function(1))), ("\u{1B}OQ", KeyEvent(.function(2))),
        ("\u{1B}OR", KeyEvent(.function(3))), ("\u{1B}OS", KeyEvent(.function(4))),
        ("\u{1B}[15~", KeyEvent(.function(5))), ("\u{1B}[17~", KeyEvent(.function(6))),
        ("\u{1B}[18~", KeyEvent(.function(7))), ("\u{1B}[19~", KeyEvent(.function(8))),
        ("\u{1B}[20~", KeyEvent(.function(9))), ("\u{1B}[21~", KeyEvent(.function(10))),
        ("\u{1B}[23~", KeyEvent(.function(11))), ("\u{1B}[24~", KeyEvent(.function(12))),
        ("\u{1B}[1;5A", KeyEvent(.up, modifiers: .control)), ("\u{1B}[1;2B", KeyEvent(.down, modifiers: .shift)),
        ("\u{1B}[1;3C", KeyEvent(.right, modifiers: .alt)),
        ("\u{1B}[1;6D", KeyEvent(.left, modifiers: [.control, .shift])),
        ("\u{1B}[3;5~", KeyEvent(.delete, modifiers: .control)),
        ("\u{1B}[1;2P", KeyEvent(.function(1), modifiers: .shift)),
        ("\u{1B}[5;3~", KeyEvent(.pageUp, modifiers: .alt)), ("\u{03}", .control("c")), ("\u{01}", .control("a")),
        ("\u{1A}", .control("z")), ("\u{00}", .control(" ")), ("\u{1F}", .control("_")),
        ("\u{1B}x", KeyEvent(.character("x"), modifiers: .alt)),
        ("\u{1B}\u{7F}", KeyEvent(.backspace, modifiers: .alt)),
        ("\u{1B}\u{01}", KeyEvent(.character("a"), modifiers: [.control, .alt])),
        ("\u{1B}é", KeyEvent(.character("é"), modifiers: .alt)), ("\u{1B}[97;5u", .control("a")),
        ("\u{1B}[13u", KeyEvent(.enter)), ("\u{1B}", KeyEvent(.escape)),
    ]

    @Test("each key sequence decodes to its key", arguments: sequences)
    func sequence(_ bytes: String, _ expected: KeyEvent) {
        #expect(decode(bytes) == [.key(expected)])
    }

    @Test func multiByteText() {
        #expect(decode("aé日🙂") == ["a", "é", "日", "🙂"].map { key(.character($0)) })
    }

    @Test func utf8SplitAcrossReads() {
        var decoder = KeyDecoder()
        let bytes = Array("日".utf8)
        #expect(decoder.feed(bytes.prefix(1)).isEmpty)
        #expect(decoder.isWaiting)
        #expect(decoder.feed(bytes.dropFirst(1).prefix(1)).isEmpty)
        #expect(decoder.feed(bytes.dropFirst(2)) == [key(.character("日"))])
        #expect(!decoder.isWaiting)
    }

    @Test func sequenceSplitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[1;".utf8)).isEmpty)
        #expect(decoder.feed(Array("5A".utf8)) == [key(.up, .control)])
    }

    @Test func loneEscapeWaitsForTheTimeout() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.isWaiting)
        #expect(decoder.flush() == [key(.escape)])
        #expect(!decoder.isWaiting)
    }

    @Test func escapeThenKeyInOneReadIsAlt() {
        #expect(decode("\u{1B}j") == [key(.character("j"), .alt)])
    }

    @Test func doubleEscapeIsTwoEscapes() {
        #expect(decode("\u{1B}\u{1B}") == [key(.escape), key(.escape)])
    }

    @Test func escapeBeforeSequence() {
        #expect(decode("\u{1B}\u{1B}[A") == [key(.escape), key(.up)])
    }

    @Test func incompleteCSIAtTimeoutIsAltBracket() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[".utf8)).isEmpty)
        #expect(decoder.flush() == [key(.character("["), .alt)])
    }

    @Test(
        "unknown sequences are dropped, never shown as text",
        arguments: [
            "\u{1B}[99~", "\u{1B}[?1;2c", "\u{1B}[200;1;1t", "\u{1B}OX", "\u{1B}[1;5X", "\u{1B}[<1;2M", "\u{1B}[<64;1M",
        ])
    func unknownDropped(_ bytes: String) {
        #expect(decode(bytes + "a") == [key(.character("a"))])
    }

    @Test func invalidUTF8IsDropped() {
        var decoder = KeyDecoder()
        let events = decoder.feed([0xFF, 0xC0, 0x61, 0xE2, 0x28, 0x62]) + decoder.flush()
        #expect(events == [key(.character("a")), key(.character("(")), key(.character("b"))])
    }

    @Test func bracketedPasteIsOneEvent() {
        let events = decode("x\u{1B}[200~line 1\r\nline 2\u{1B}[A\rend\u{1B}[201~y")
        #expect(events == [key(.character("x")), .paste("line 1\nline 2\u{1B}[A\nend"), key(.character("y"))])
    }

    @Test func bracketedPasteSplitAcrossReads() {
        var decoder = KeyDecoder()
        var events: [InputEvent] = []
        for chunk in ["\u{1B}[20", "0~hel", "lo\u{1B}[2", "01", "~!"] {
            events += decoder.feed(Array(chunk.utf8))
        }
        #expect(events == [.paste("hello"), key(.character("!"))])
    }

    @Test func mouseWheelAndClick() {
        #expect(decode("\u{1B}[<64;10;5M") == [.mouse(MouseEvent(.wheelUp, at: Point(x: 9, y: 4)))])
        #expect(decode("\u{1B}[<65;1;1M") == [.mouse(MouseEvent(.wheelDown, at: Point(x: 0, y: 0)))])
        #expect(decode("\u{1B}[<0;3;7M") == [.mouse(MouseEvent(.press(button: 0), at: Point(x: 2, y: 6)))])
        #expect(decode("\u{1B}[<0;3;7m") == [.mouse(MouseEvent(.release(button: 0), at: Point(x: 2, y: 6)))])
        #expect(
            decode("\u{1B}[<16;3;7M") == [
                .mouse(MouseEvent(.press(button: 0), at: Point(x: 2, y: 6), modifiers: .control))
            ])
        #expect(decode("\u{1B}[<32;4;7M") == [.mouse(MouseEvent(.drag(button: 0), at: Point(x: 3, y: 6)))])
    }

    @Test func keysAreNamedForHelp() {
        #expect(KeyEvent.control("c").description == "Ctrl-C")
        #expect(KeyEvent(.tab, modifiers: .shift).description == "Shift-Tab")
        #expect(KeyEvent(.pageDown).description == "PgDn")
        #expect(KeyEvent.character(" ").description == "Space")
        #expect(KeyEvent.character("G").description == "G")
    }
}
