/// Turns raw terminal input bytes into events.
///
/// Feed bytes as they arrive; sequences split across reads are completed by the next
/// `feed`. A lone Escape cannot be told from the start of a sequence until time passes:
/// when `isWaiting` is true after a feed, call `flush()` if no more bytes arrive within a
/// short timeout (about 25 ms). Unknown or malformed sequences and invalid UTF-8 are
/// dropped, never returned as text. Not thread-safe: one decoder per input stream.
public struct KeyDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var paste: [UInt8]?

    private static let escape: UInt8 = 0x1B
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)
    /// Pastes larger than this are cut, so a runaway paste cannot exhaust memory.
    static let maximumPasteBytes = 1 << 20

    /// A decoder with nothing held back.
    public init() {}

    /// True when bytes are held back waiting for the rest of a sequence.
    public var isWaiting: Bool { !buffer.isEmpty || paste != nil }

    /// Decodes `bytes` (appended to anything held back) into events, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [InputEvent] {
        buffer.append(contentsOf: bytes)
        var events: [InputEvent] = []
        var index = 0
        while index < buffer.count {
            if paste != nil {
                // When the end marker has not arrived, the bytes before `index` are done and
                // a possible partial marker stays at `index` for the next feed.
                guard let consumed = consumePaste(from: index, into: &events) else { break }
                index = consumed
                continue
            }
            guard let (event, next) = decode(at: index) else { break }
            if let event {
                if case .paste = event {
                    paste = []
                } else {
                    events.append(event)
                }
            }
            index = next
        }
        buffer.removeFirst(min(index, buffer.count))
        return events
    }

    /// Resolves held-back bytes after the Escape timeout: a lone Escape becomes `.escape`,
    /// `ESC [` and `ESC O` become Alt-[ and Alt-O, anything else incomplete is dropped.
    /// An unfinished bracketed paste is delivered as it stands.
    public mutating func flush() -> [InputEvent] {
        defer { buffer.removeAll() }
        if let pending = paste {
            paste = nil
            return [.paste(Self.normalisedPaste(pending + buffer))]
        }
        switch buffer {
        case [Self.escape]: return [.key(KeyEvent(.escape))]
        case [Self.escape, UInt8(ascii: "[")]: return [.key(KeyEvent(.character("["), modifiers: .alt))]
        case [Self.escape, UInt8(ascii: "O")]: return [.key(KeyEvent(.character("O"), modifiers: .alt))]
        default: return []
        }
    }

    // MARK: - Decoding

    /// Decodes one event at `index`: nil when more bytes are needed; otherwise the event
    /// (nil when the bytes were dropped) and the index after it. A `.paste("")` result
    /// marks the start of a bracketed paste.
    private func decode(at index: Int) -> (InputEvent?, Int)? {
        let byte = buffer[index]
        if byte == Self.escape {
            return decodeEscape(at: index)
        }
        if byte < 0x20 || byte == 0x7F {
            return (Self.controlKey(byte).map { .key($0) }, index + 1)
        }
        guard let (character, next) = decodeUTF8(at: index) else { return nil }
        return (character.map { .key(KeyEvent(.character($0))) }, next)
    }

    private static func controlKey(_ byte: UInt8) -> KeyEvent? {
        switch byte {
        case 0x0D, 0x0A: return KeyEvent(.enter)
        case 0x09: return KeyEvent(.tab)
        case 0x7F, 0x08: return KeyEvent(.backspace)
        case 0x00: return .control(" ")
        case 0x01...0x1A: return .control(Character(Unicode.Scalar(byte + 0x60)))
        case 0x1C...0x1F: return .control(Character(Unicode.Scalar(byte + 0x40)))
        default: return nil
        }
    }

    private func decodeEscape(at index: Int) -> (InputEvent?, Int)? {
        guard index + 1 < buffer.count else { return nil }
        let next = buffer[index + 1]
        switch next {
        case UInt8(ascii: "["):
            return decodeCSI(at: index + 2)
        case UInt8(ascii: "O"):
            guard index + 2 < buffer.count else { return nil }
            let key: KeyEvent.Key? =
                switch buffer[index + 2] {
                case UInt8(ascii: "A"): .up
                case UInt8(ascii: "B"): .down
                case UInt8(ascii: "C"): .right
                case UInt8(ascii: "D"): .left
                case UInt8(ascii: "H"): .home
                case UInt8(ascii: "F"): .end
                case UInt8(ascii: "M"): .enter
                case UInt8(ascii: "P"): .function(1)
                case UInt8(ascii: "Q"): .function(2)
                case UInt8(ascii: "R"): .function(3)
                case UInt8(ascii: "S"): .function(4)
                default: nil
                }
            return (key.map { .key(KeyEvent($0)) }, index + 3)
        case Self.escape:
            // ESC ESC: Escape pressed twice, or Alt-Escape; report one Escape and decode on.
            return (.key(KeyEvent(.escape)), index + 1)
        case 0x00..<0x20, 0x7F:
            guard var key = Self.controlKey(next) else { return (nil, index + 2) }
            key.modifiers.insert(.alt)
            return (.key(key), index + 2)
        default:
            guard let (character, end) = decodeUTF8(at: index + 1) else { return nil }
            return (character.map { .key(KeyEvent(.character($0), modifiers: .alt)) }, end)
        }
    }

    /// Parses `CSI params intermediates final` starting after `ESC [`.
    private func decodeCSI(at start: Int) -> (InputEvent?, Int)? {
        var index = start
        while index < buffer.count, (0x20...0x3F).contains(buffer[index]) { index += 1 }
        guard index < buffer.count else {
            // Give up on absurdly long parameter strings instead of waiting forever.
            return index - start > 64 ? (nil, index) : nil
        }
        let final = buffer[index]
        let end = index + 1
        guard (0x40...0x7E).contains(final) else { return (nil, index) }
        let parameterBytes = buffer[start..<index]
        if parameterBytes.first == UInt8(ascii: "<") {
            return (decodeSGRMouse(parameterBytes.dropFirst(), final: final), end)
        }
        guard parameterBytes.allSatisfy({ (0x30...0x3B).contains($0) }) else { return (nil, end) }
        let parameters = String(decoding: parameterBytes, as: UTF8.self)
            .split(separator: ";", omittingEmptySubsequences: false)
            .map { Int($0.split(separator: ":").first ?? "") }
        let modifiers = Self.modifiers(parameters.count > 1 ? parameters[1] : nil)
        let key: KeyEvent.Key?
        switch final {
        case UInt8(ascii: "A"): key = .up
        case UInt8(ascii: "B"): key = .down
        case UInt8(ascii: "C"): key = .right
        case UInt8(ascii: "D"): key = .left
        case UInt8(ascii: "H"): key = .home
        case UInt8(ascii: "F"): key = .end
        case UInt8(ascii: "P"): key = .function(1)
        case UInt8(ascii: "Q"): key = .function(2)
        case UInt8(ascii: "R"): key = .function(3)
        case UInt8(ascii: "S"): key = .function(4)
        case UInt8(ascii: "Z"): return (.key(KeyEvent(.tab, modifiers: modifiers.union(.shift))), end)
        case UInt8(ascii: "~"):
            let code = parameters.first ?? nil
            if code == 200 { return (.paste(""), end) }
            key = code.flatMap(Self.tildeKey)
        case UInt8(ascii: "u"):
            // CSI u (fixterms / kitty): the first parameter is the Unicode code point.
            guard let code = parameters.first ?? nil else { return (nil, end) }
            if code < 0x20 || code == 0x7F {
                guard var event = Self.controlKey(UInt8(code)) else { return (nil, end) }
                event.modifiers.formUnion(modifiers)
                return (.key(event), end)
            }
            key = Unicode.Scalar(code).map { .character(Character($0)) }
        default: key = nil
        }
        return (key.map { .key(KeyEvent($0, modifiers: modifiers)) }, end)
    }

    private static func tildeKey(_ code: Int) -> KeyEvent.Key? {
        switch code {
        case 1, 7: .home
        case 2: .insert
        case 3: .delete
        case 4, 8: .end
        case 5: .pageUp
        case 6: .pageDown
        case 11...15: .function(code - 10)
        case 17...21: .function(code - 11)
        case 23, 24: .function(code - 12)
        default: nil
        }
    }

    /// xterm's modifier parameter: 1 + (shift 1 | alt 2 | ctrl 4 | meta 8).
    private static func modifiers(_ parameter: Int?) -> KeyEvent.Modifiers {
        guard let parameter, parameter > 1 else { return [] }
        let bits = parameter - 1
        var modifiers: KeyEvent.Modifiers = []
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & 2 != 0 || bits & 8 != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.control) }
        return modifiers
    }

    /// `CSI < button ; x ; y M|m`, coordinates one-based.
    private func decodeSGRMouse(_ bytes: ArraySlice<UInt8>, final: UInt8) -> InputEvent? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: ";").compactMap { Int($0) }
        guard fields.count == 3, final == UInt8(ascii: "M") || final == UInt8(ascii: "m") else { return nil }
        let code = fields[0]
        let position = Point(x: fields[1] - 1, y: fields[2] - 1)
        var modifiers: KeyEvent.Modifiers = []
        if code & 4 != 0 { modifiers.insert(.shift) }
        if code & 8 != 0 { modifiers.insert(.alt) }
        if code & 16 != 0 { modifiers.insert(.control) }
        let button = code & 3
        let action: MouseEvent.Action
        if code & 64 != 0 {
            guard button <= 1 else { return nil }  // horizontal wheel: not reported
            action = button == 0 ? .wheelUp : .wheelDown
        } else if code & 32 != 0 {
            action = .drag(button: button)
        } else if final == UInt8(ascii: "m") {
            action = .release(button: button)
        } else {
            action = .press(button: button)
        }
        return .mouse(MouseEvent(action, at: position, modifiers: modifiers))
    }

    /// One UTF-8 encoded character at `index`: nil when incomplete; `(nil, next)` when
    /// the bytes are not valid UTF-8 (one byte is dropped).
    private func decodeUTF8(at index: Int) -> (Character?, Int)? {
        let lead = buffer[index]
        let length: Int
        switch lead {
        case 0x00..<0x80: length = 1
        case 0xC2..<0xE0: length = 2
        case 0xE0..<0xF0: length = 3
        case 0xF0..<0xF5: length = 4
        default: return (nil, index + 1)
        }
        guard index + length <= buffer.count else {
            // Incomplete: wait only if what is there so far is a valid prefix.
            for i in index + 1..<buffer.count where buffer[i] & 0xC0 != 0x80 { return (nil, index + 1) }
            return nil
        }
        let bytes = buffer[index..<index + length]
        var decoded = String(validating: bytes, as: UTF8.self)
        if decoded == nil || decoded?.unicodeScalars.count != 1 { decoded = nil }
        guard let text = decoded, let scalar = text.unicodeScalars.first else { return (nil, index + 1) }
        return (Character(scalar), index + length)
    }

    // MARK: - Bracketed paste

    /// Collects paste bytes until `ESC [ 201 ~`; nil when the end has not arrived yet.
    private mutating func consumePaste(from index: Int, into events: inout [InputEvent]) -> Int? {
        let rest = buffer[index...]
        if let range = rest.firstRange(of: Self.pasteEnd) {
            let content = (paste ?? []) + buffer[index..<range.lowerBound]
            paste = nil
            events.append(.paste(Self.normalisedPaste(content)))
            return range.upperBound
        }
        // Keep a possible partial end marker in the buffer; move the rest into the paste.
        let keep = min(Self.pasteEnd.count - 1, rest.count)
        let movable = rest.count - keep
        if (paste?.count ?? 0) < Self.maximumPasteBytes {
            paste?.append(contentsOf: buffer[index..<index + movable])
        }
        buffer.removeSubrange(index..<index + movable)
        return nil
    }

    private static func normalisedPaste(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
            .replacing("\r\n", with: "\n")
            .replacing("\r", with: "\n")
    }
}
