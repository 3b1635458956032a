/// Words quoted for a POSIX shell, for every command a message or hint tells a person to run
/// (`iconv … FILE`, `shelf users add --email …`, `shelf demo --db …`): the one rule, so a
/// name or email holding `$(…)`, a backquote, a space or a quote is pasted as text, never run.
public enum ShellQuoting {
    /// `word` as is when it holds only characters no shell treats specially anywhere in a
    /// word (letters, digits and `@ % + : , . / _ -`, and `=` after the first character), else
    /// in single quotes, a single quote inside written as `'\''`:
    /// `/tmp/a b.sqlite` → `'/tmp/a b.sqlite'`, `$(rm -rf ~)@x` → `'$(rm -rf ~)@x'`, `` → `''`.
    public static func quoted(_ word: String) -> String {
        let plain =
            !word.isEmpty && !word.hasPrefix("=")
            && word.unicodeScalars.allSatisfy { scalar in
                scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "@%+=:,./_-".unicodeScalars.contains(scalar)
            }
        return plain
            ? word
            : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}
