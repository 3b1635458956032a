/// `count` and the noun, singular for exactly one: "1 row", "0 rows", "2 items".
func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
