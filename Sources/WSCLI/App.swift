public enum App {
    public static func main() {}
}
