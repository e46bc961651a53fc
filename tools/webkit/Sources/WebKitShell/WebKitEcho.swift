import CWebKitGTK
/// placeholder
package enum WebKitEcho { package static func main() {} }
