package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import io.reactiveregistry.server.e2e.NacosPorts;
import io.reactiveregistry.server.nacos.NacosFloor;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The Nacos door's floor (what {@code load-tests/bench/nacos-side-by-side.sh} measures the door
 * against) serves a real Nacos client's connection and registrations as the door does, so that the
 * bench's figures for both are the same client's same calls; and it serves nothing else.
 */
class NacosFloorTest {

  @Test
  void aNacosClientConnectsAndRegistersAgainstTheFloor() throws Exception {
    int port = NacosPorts.freePair();
    try (AutoCloseable floor = NacosFloor.listen(port)) {
      Properties properties = new Properties();
      properties.setProperty(PropertyKeyConst.SERVER_ADDR, "127.0.0.1:" + port);
      NamingService naming = NamingFactory.createNamingService(properties);
      try {
        assertThat(naming.getServerStatus()).isEqualTo("UP");
        for (int i = 0; i < 100; i++) {
          naming.registerInstance("svc-" + i, "127.0.0.1", 9001); // each answered, or it throws
        }
        assertThatThrownBy(() -> naming.getAllInstances("svc-0", false))
            .isInstanceOf(NacosException.class).hasMessageContaining("the floor answers only");
      } finally {
        naming.shutDown();
      }
    }
  }
}
