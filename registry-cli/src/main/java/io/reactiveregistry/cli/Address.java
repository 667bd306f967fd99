package io.reactiveregistry.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** An instance's {@code ip:port} ({@code [v6]:port} for IPv6), as typed on the command line. */
record Address(String ip, int port) {

  static final class Converter implements ITypeConverter<Address> {
    @Override
    public Address convert(String value) {
      int colon = value.lastIndexOf(':');
      if (colon <= 0 || colon == value.length() - 1) {
        throw new TypeConversionException("'" + value + "' is not ip:port (e.g. 127.0.0.5:8080, [::1]:8080)");
      }
      String ip = value.substring(0, colon);
      if (ip.startsWith("[") && ip.endsWith("]")) {
        ip = ip.substring(1, ip.length() - 1);
      }
      try {
        return new Address(ip, Integer.parseInt(value.substring(colon + 1)));
      } catch (NumberFormatException e) {
        throw new TypeConversionException("'" + value + "': the port is not a number");
      }
    }
  }
}
