package io.reactiveregistry.interop.nacos;

import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import java.nio.file.Path;
import java.util.Properties;

/**
 * An application using Nacos's naming client as any does, run as a process of its own so that a
 * test can kill it: {@code NacosApp <serverAddr> <service> <ip> <port>} registers one ephemeral
 * instance, prints {@value #REGISTERED}, and waits to be killed.
 */
public final class NacosApp {
  static final String REGISTERED = "registered with nacos";

  private NacosApp() {}

  public static void main(String[] args) throws Exception {
    NamingService naming = NamingFactory.createNamingService(properties(args[0], null, null));
    naming.registerInstance(args[1], args[2], Integer.parseInt(args[3]));
    System.out.println(REGISTERED);
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  /** A naming client's settings: the server list, and a user and password when given. */
  static Properties properties(String serverAddr, String username, String password) {
    Properties properties = new Properties();
    properties.setProperty(PropertyKeyConst.SERVER_ADDR, serverAddr);
    if (username != null) {
      properties.setProperty(PropertyKeyConst.USERNAME, username);
      properties.setProperty(PropertyKeyConst.PASSWORD, password);
    }
    return properties;
  }

  /** The same JVM, classpath and Nacos settings as this one's, running {@code NacosApp}. */
  static ProcessBuilder process(String serverAddr, String service, String ip, int port) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, "-Xmx192m", "-XX:TieredStopAtLevel=1",
        "-Dnacos.logging.default.config.enabled=false",
        "-DJM.SNAPSHOT.PATH=" + System.getProperty("JM.SNAPSHOT.PATH", "target/nacos-cache"),
        "-DJM.LOG.PATH=" + System.getProperty("JM.LOG.PATH", "target/nacos-logs"),
        "-cp", System.getProperty("java.class.path"), NacosApp.class.getName(), serverAddr, service, ip,
        Integer.toString(port)).redirectErrorStream(true);
  }
}
