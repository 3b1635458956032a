/// `count` and the noun, singular for exactly one: "1 row", "0 rows", "2 items".
func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}

extension String {
    /// The text with every run of five or more digits grouped by threes with commas:
    /// "65536 bytes" is "65,536 bytes".
    var grouped: String {
        var result = ""
        var digits = ""
        func flush() {
            if digits.count < 5 {
                result += digits
            } else {
                for (index, digit) in digits.enumerated() {
                    if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
                    result.append(digit)
                }
            }
            digits = ""
        }
        for character in self {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}
