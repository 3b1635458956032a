internal import Foundation

/// The one rule for the emails that identify users, shared by the repository and the importer.
///
/// Two emails that look the same must be the same user, and an email must not be able to
/// change how a screen reads. So before an email is stored, compared or looked up it is put in
/// one form, and characters that are invisible or move text around are refused.
package enum Email {
    /// `email` in the form it is stored and compared in, or a `StoreError` (`.invalidValue`)
    /// saying which character is refused, where, and what to do.
    ///
    /// - Space separators (U+0020, U+00A0, U+3000, …) around it are removed; controls are not
    ///   trimmed but refused, so `"ann@example.com\n"` is an error, not a quiet fix.
    /// - It is put in Unicode Normalization Form C, so `Äda` typed composed (U+00C4) and
    ///   decomposed (`A` U+0308) is one email. Letter case is left as typed; two emails that
    ///   differ only in letter case, in any script, are one user by their `key(_:)`.
    /// - Refused anywhere in it: C0 controls (U+0000–U+001F, newline and tab included), DEL,
    ///   C1 controls (U+0080–U+009F), the line and paragraph separators U+2028 and U+2029, the
    ///   bidirectional formatting characters U+061C, U+200E, U+200F, U+202A–U+202E and
    ///   U+2066–U+2069, and every other invisible formatting character (general category Cf:
    ///   zero-width space and joiners, soft hyphen, word joiner, byte order mark, tags), which
    ///   would make two emails that read the same.
    ///
    /// - Refused inside it (not around it): white space, as in `a b@e.org`.
    /// - Refused: a host with an empty label (`ann@.example.com`, `ann@example..com`,
    ///   `ann@example.com.`): no mail reaches it (hostile round 11: `shelf import users` took
    ///   `user00000@.example.com`).
    ///
    /// The rest of the shape (`name@host`, at most 320 characters) is left to the schema's
    /// CHECK, which every write meets. Position counts Unicode scalars from 1 in `email` as
    /// given.
    package static func normalized(_ email: String) throws(StoreError) -> String {
        for (offset, scalar) in email.unicodeScalars.enumerated() where isRefused(scalar) {
            throw StoreError(
                .invalidValue,
                "the email \"\(escaped(email))\" holds \(describe(scalar)) at character \(offset + 1); "
                    + "an email must not hold control, line-separator, invisible or text-direction characters: "
                    + "retype it without that character")
        }
        // Spaces around it are trimmed; one inside ("a b@e.org") is a typo, not an address
        // anyone can send to.
        let scalars = Array(email.unicodeScalars)
        if let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) }),
            let inside = scalars[first...last].firstIndex(where: { $0.properties.isWhitespace })
        {
            let scalar = scalars[inside]
            throw StoreError(
                .invalidValue,
                "the email \"\(escaped(email))\" holds \(scalar == " " ? "a space" : describe(scalar)) at "
                    + "character \(inside + 1); an email cannot hold spaces: remove it")
        }
        let result = canonical(email)
        if let problem = hostProblem(result) {
            throw StoreError(.invalidValue, "the email \"\(escaped(email))\" \(problem)")
        }
        return result
    }

    /// What is wrong with the host of `email` (after its last `@`): an empty label, a dot at
    /// its start or end or two dots together. Nil for a right host, and for no host at all
    /// (the schema's CHECK names that).
    package static func hostProblem(_ email: String) -> String? {
        guard let at = email.lastIndex(of: "@") else { return nil }
        let host = email[email.index(after: at)...]
        guard !host.isEmpty else { return nil }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.contains(where: \.isEmpty) else { return nil }
        let place =
            host.hasPrefix(".")
            ? "a dot at its start" : host.hasSuffix(".") ? "a dot at its end" : "two dots together"
        return "has an empty part in its host “\(host)” (\(place)); a host is names joined by single dots, "
            + "such as example.com: correct the email"
    }

    /// `email` trimmed and in NFC, with nothing refused: the key to look up a user by, so a
    /// user stored before the rule (with a character it now refuses) can still be found.
    package static func lookupKey(_ email: String) -> String {
        canonical(email)
    }

    /// The key that identifies a user by `email`: `lookupKey(email)` with Unicode full case
    /// folding applied, then in NFC again. `Äda@x.com` and `äda@x.com` have one key, and so
    /// have `straße@x.com` and `STRASSE@x.com` (ß folds to ss), `ΣΑΣ` and `σας`.
    ///
    /// Case folding (Unicode's CaseFolding.txt, full mappings, no Turkic special case) is the
    /// mapping Unicode defines for caseless matching; `lowercased()` is not (it keeps ß, which
    /// folds to "ss", and maps final sigma apart from sigma). Compatibility forms (NFKC:
    /// full-width letters, ligatures other than the ones folding maps) are not merged: they
    /// are other characters, not other letter case. The key is computed here, in Swift, for
    /// both backends, so SQLite and PostgreSQL give the same answers (SQLite's NOCASE and
    /// lower() fold ASCII only; PostgreSQL's lower() follows the database's locale).
    package static func key(_ email: String) -> String {
        let email = canonical(email)
        if email.utf8.allSatisfy({ $0 < 0x80 }) { return email.lowercased() }
        return email.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }

    private static func canonical(_ email: String) -> String {
        let scalars = email.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        let trimmed = String(scalars[first...last])
        if trimmed.utf8.allSatisfy({ $0 < 0x80 }) { return trimmed }
        return trimmed.precomposedStringWithCanonicalMapping
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .spaceSeparator
    }

    /// True for the characters `normalized(_:)` refuses.
    package static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        case 0x20...0x7E: false
        // Format characters, and everything else Unicode says to ignore when displayed (the
        // combining grapheme joiner, variation selectors, Hangul fillers): two emails that look
        // the same must be the same.
        default: scalar.properties.generalCategory == .format || scalar.properties.isDefaultIgnorableCodePoint
        }
    }

    /// "U+202E (RIGHT-TO-LEFT OVERRIDE)".
    private static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let name = scalar.properties.name ?? scalar.properties.nameAlias
        return name.map { "\(code) (\($0))" } ?? code
    }

    /// `email` with every refused character written as `\u{…}`, safe to print; cut after
    /// 100 characters so a pasted page does not become the message.
    private static func escaped(_ email: String) -> String {
        var result = ""
        for (offset, scalar) in email.unicodeScalars.enumerated() {
            if offset == 100 {
                result += "…"
                break
            }
            if isRefused(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
