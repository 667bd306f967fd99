package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.security.SecurityConfig;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.WindowType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real browser: Debian's headless Chromium, driven by Selenium through Debian's
 * ChromeDriver, against a real server. Changes made over RSocket appear on the open page without a
 * reload; an action taken on the page is in the registry's views; the audit trail shows why.
 * Skipped, saying why, only where no Chromium is installed ({@code .ci/run} installs it).
 *
 * <p>With {@code -Ddashboard.screenshots=<dir>} the main pages are saved there as PNG files (the
 * README's pictures, in {@code docs/}).
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class DashboardBrowserTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final String CHROMIUM = System.getProperty("chromium.binary", "/usr/bin/chromium");
  private static final String CHROMEDRIVER = System.getProperty("chromedriver.binary", "/usr/bin/chromedriver");
  private static final String OPS = "ops-7d1c9e0b2f";
  private static final String READER = "reader-0e5b8a41c3";

  @TempDir
  static Path profile;

  private ServerFixture fixture;
  /**
   * One browser for the class, each test in a tab of its own: starting Chromium costs seconds of
   * CPU on the suite's two cores, and each test's server is another origin (its own port), so no
   * page state carries over.
   */
  private static WebDriver browser;

  @BeforeAll
  static void needsChromium() {
    Prerequisites.require(new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute(),
        "no Chromium here (" + CHROMIUM + ", " + CHROMEDRIVER + "): .ci/run installs Debian's chromium and "
            + "chromium-driver");
  }

  @AfterEach
  void stop() {
    if (browser != null) {
      try {
        leaveOneBlankTab();
      } catch (RuntimeException browserInAnOddState) {
        quit(); // the next test starts a fresh one
      }
    }
    if (fixture != null) {
      fixture.close();
    }
  }

  @AfterAll
  static void quit() {
    if (browser != null) {
      browser.quit();
      browser = null;
    }
  }

  /** Closes the tabs a test opened and leaves the first on a blank page, disconnected from the test's server. */
  private static void leaveOneBlankTab() {
    List<String> tabs = new ArrayList<>(browser.getWindowHandles());
    for (String tab : tabs.subList(1, tabs.size())) {
      browser.switchTo().window(tab).close();
    }
    browser.switchTo().window(tabs.get(0));
    browser.get("about:blank");
  }

  private WebDriver open(ServerFixture server, String page) throws IOException {
    if (browser == null) {
      browser = start();
    }
    browser.get("http://127.0.0.1:" + server.server().httpPort() + "/" + page);
    return browser;
  }

  private static WebDriver start() throws IOException {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    // Without the background-networking flags Chromium dials Google's hosts, which this machine refuses.
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1360,860",
        "--user-data-dir=" + Files.createTempDirectory(profile, "chromium"));
    // The driver's own ChromeDriver process: quitting the browser stops it.
    return new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
        .usingAnyFreePort().build(), options);
  }

  /** A fresh server with no security, the page open and live on it, and a witness connection. */
  private WireClient serverWithPageOpen(String page) throws IOException {
    fixture = new ServerFixture();
    WireClient witness = fixture.connect("witness");
    open(fixture, page);
    waiting().until(ExpectedConditions.textToBe(By.id("live"), "live"));
    return witness;
  }

  private WebDriverWait waiting() {
    return new WebDriverWait(browser, WAIT);
  }

  private WebElement row(String css) {
    return waiting().until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
  }

  private void confirm() {
    waiting().until(ExpectedConditions.elementToBeClickable(By.id("ask-confirm"))).click();
    waiting().until(ExpectedConditions.invisibilityOfElementLocated(By.id("ask")));
  }

  private static ServiceSnapshot query(WireClient witness, String service) {
    return JsonCodec.json().decode(witness.call("service.query", "{\"service\":\"" + service + "\"}"),
        ServiceSnapshot.class);
  }

  @Test
  void thePagesFollowTheRegistryAndTheOperatorActsFromThem() throws Exception {
    WireClient witness = serverWithPageOpen("#/trace");
    String trailTab = browser.getWindowHandle();
    browser.switchTo().newWindow(WindowType.TAB);
    browser.get("http://127.0.0.1:" + fixture.server().httpPort() + "/#/services");
    waiting().until(ExpectedConditions.textToBe(By.id("live"), "live"));
    ((JavascriptExecutor) browser).executeScript("window.notReloaded = true");

    // Registered over RSocket: on the open page, without a reload.
    WireClient app = fixture.connect("orders-app");
    app.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080,"
        + "\"metadata\":{\"zone\":\"a\"}}}");
    WebElement orders = row("#services tr[data-service='orders']");
    waiting().until(d -> orders.findElements(By.cssSelector("td.count")).get(0).getText().equals("1"));
    assertThat(((JavascriptExecutor) browser).executeScript("return window.notReloaded")).isEqualTo(true);
    // The namespace list counts it too (public held nothing when the page opened).
    waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("services-namespace"),
        "public (1 service, 1 instance)"));
    screenshot("dashboard-services");

    // The service: the instance with its owning connection and last heartbeat.
    orders.findElement(By.linkText("orders")).click();
    WebElement instance = row("#instances tr[data-instance='127.0.0.5:8080']");
    waiting().until(d -> instance.findElement(By.cssSelector("td.owner")).getText().startsWith("orders-app@"));
    assertThat(instance.getText()).contains("zone=a", "healthy", "enabled");

    // Disabled from the page, after confirming: the registry's views show it, the page marks the override.
    instance.findElement(By.cssSelector("button.toggle")).click();
    assertThat(browser.findElement(By.id("ask")).getText()).contains("Disable 127.0.0.5:8080?");
    confirm();
    await().atMost(WAIT).until(() -> !query(witness, "orders").instances().get(0).enabled());
    waiting().until(ExpectedConditions.textToBePresentInElement(instance, "disabled"));
    waiting().until(d -> instance.findElements(By.cssSelector(".badge.override")).stream()
        .anyMatch(WebElement::isDisplayed));
    // A weight, asked for in the dialog.
    instance.findElement(By.cssSelector("button.weight")).click();
    WebElement weight = browser.findElement(By.cssSelector("#ask input[name='weight']"));
    weight.clear();
    weight.sendKeys("3");
    confirm();
    await().atMost(WAIT).until(() -> query(witness, "orders").instances().get(0).weight() == 3.0);
    waiting().until(d -> instance.findElements(By.tagName("td")).get(2).getText().split("\\s")[0].equals("3"));
    // The service's recent changes, from the server's history: the override names what it changed.
    waiting().until(d -> d.findElements(By.cssSelector("#service-history tr[data-cause='OVERRIDE']")).size() == 2);
    assertThat(browser.findElements(By.cssSelector("#service-history tr[data-cause='OVERRIDE']")))
        .extracting(WebElement::getText)
        .anySatisfy(text -> assertThat(text).contains("enabled: true → false"))
        .anySatisfy(text -> assertThat(text).contains("weight: 1.0 → 3.0"));
    screenshot("dashboard-service");

    // The connections page: who owns what.
    browser.get(browser.getCurrentUrl().replaceAll("#.*", "#/connections"));
    WebElement connection = row("#connections tr[data-connection]:not([data-connection='1'])");
    assertThat(connection.getText()).contains("orders-app", "tcp");
    screenshot("dashboard-connections");

    // The registering connection closes: its instance leaves the open page.
    browser.navigate().back();
    row("#instances tr[data-instance='127.0.0.5:8080']");
    app.close();
    waiting().until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#instances tr[data-instance]"), 0));
    assertThat(query(witness, "orders").instances()).isEmpty();

    // The audit trail, open all along, shows each cause.
    browser.switchTo().window(trailTab);
    for (String cause : List.of("REGISTER", "OVERRIDE", "CONNECTION_CLOSED")) {
      row("#trace tr[data-cause='" + cause + "']");
    }
    assertThat(browser.findElement(By.cssSelector("#trace tr[data-cause='REGISTER']")).getText())
        .contains("orders", "127.0.0.5#8080#DEFAULT");
    screenshot("dashboard-trace");

    // A page opened afterwards starts from the history the server kept, newest first, then follows.
    browser.switchTo().newWindow(WindowType.TAB);
    browser.get("http://127.0.0.1:" + fixture.server().httpPort() + "/#/trace");
    row("#trace tr[data-cause='CONNECTION_CLOSED']");
    List<String> causes = browser.findElements(By.cssSelector("#trace tr[data-cause]")).stream()
        .map(row -> row.getAttribute("data-cause")).toList();
    assertThat(causes).containsExactly("CONNECTION_CLOSED", "OVERRIDE", "OVERRIDE", "REGISTER");
    waiting().until(ExpectedConditions.textToBe(By.id("live"), "live"));
    witness.call("instance.register", "{\"service\":\"billing\",\"instance\":{\"ip\":\"127.0.0.6\",\"port\":9090}}");
    waiting().until(d -> d.findElements(By.cssSelector("#trace tr[data-cause]")).size() == 5);
    assertThat(browser.findElement(By.cssSelector("#trace tr[data-cause]")).getText()).contains("billing");
  }

  @Test
  void anUnhealthyPersistentInstanceSaysWhyAndItsFlipIsInTheServicesRecentChanges() throws Exception {
    WireClient witness = serverWithPageOpen("#/service/public/DEFAULT_GROUP/db");
    // Nothing listens on port 1 of loopback: the first check is refused.
    witness.call("instance.register", "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.1\","
        + "\"port\":1}}");

    WebElement instance = row("#instances tr[data-instance='127.0.0.1:1']");
    waiting().until(ExpectedConditions.textToBePresentInElement(instance, "unhealthy"));
    waiting().until(d -> instance.findElement(By.cssSelector("small.check")).getText()
        .startsWith("connection refused in "));
    WebElement flip = row("#service-history tr[data-cause='HEALTH_CHECK']");
    assertThat(flip.getText()).contains("127.0.0.1#1#DEFAULT", "healthy: true → false (connection refused)");

    // Who watches db: the page itself (over HTTP), and a client that subscribes to its healthy view.
    WireClient watcher = fixture.connect("db-watcher");
    watcher.stream("service.subscribe", "{\"service\":\"db\",\"healthyOnly\":true}").subscribe();
    witness.call("instance.register", "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.1\","
        + "\"port\":2}}"); // a change, so the page reads its details again
    WebElement client = row("#subscribers tr[data-client^='db-watcher@']");
    assertThat(client.getText()).contains("rsocket", "healthy only");
    assertThat(row("#subscribers tr[data-client^='http@']").getText()).contains("http", "everything");

    // The services page, narrowed to the services with unhealthy instances: db, not orders.
    witness.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}");
    browser.get(browser.getCurrentUrl().replaceAll("#.*", "#/services"));
    row("#services tr[data-service='orders']");
    new Select(browser.findElement(By.id("services-health"))).selectByValue("unhealthy");
    waiting().until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#services tr[data-service]"), 1));
    assertThat(row("#services tr[data-service]").getAttribute("data-service")).isEqualTo("db");
  }

  @Test
  void theServerPageShowsWhatSelfPreservationJudgesByMemoryConnectionsAndRequests() throws Exception {
    WireClient witness = serverWithPageOpen("#/server");
    witness.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}");
    witness.error("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":0}}");
    browser.navigate().refresh();

    waiting().until(ExpectedConditions.textMatches(By.id("server-heartbeats"),
        Pattern.compile("[0-9.]+ of [0-9.]+ expected heartbeats a minute .*turns on below 85 %")));
    assertThat(browser.findElement(By.id("server-heartbeats")).getText()).contains("too few instances to judge by");
    waiting().until(ExpectedConditions.textMatches(By.id("server-heap"), Pattern.compile("[0-9.]+ MiB of .*")));
    assertThat(browser.findElement(By.id("server-connections")).getText()).isEqualTo("1");
    assertThat(browser.findElement(By.id("server-requests")).getText()).matches("[0-9]+ served, 1 refused.*");
  }

  @Test
  void aServiceIsCreatedEditedAndDeletedFromThePageAndBadInputIsRefusedNamingTheField() throws Exception {
    WireClient witness = serverWithPageOpen("#/services");

    browser.findElement(By.id("create-service")).click();
    field("service").sendKeys("payments");
    new Select(browser.findElement(By.cssSelector("#ask select[name='type']"))).selectByVisibleText("persistent");
    field("protectThreshold").clear();
    field("protectThreshold").sendKeys("0.5");
    browser.findElement(By.cssSelector("#ask textarea[name='metadata']")).sendKeys("team=pay");
    confirm();
    WebElement payments = row("#services tr[data-service='payments']");
    assertThat(payments.getText()).contains("persistent");
    String created = witness.call("admin.service.get", "{\"service\":\"payments\"}");
    assertThat(created).contains("\"ephemeral\":false", "\"protectThreshold\":0.5", "\"team\":\"pay\"");

    // Bad input: refused by the server naming the field, shown on the page, nothing changed.
    payments.findElement(By.linkText("payments")).click();
    waiting().until(ExpectedConditions.elementToBeClickable(By.id("update-service"))).click();
    editable("protectThreshold", "0.5").clear();
    field("protectThreshold").sendKeys("1.5");
    confirm();
    waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("error"), "INVALID_PARAM"));
    assertThat(browser.findElement(By.id("error")).getText()).contains("protectThreshold");
    browser.findElement(By.id("update-service")).click();
    // Emptied as a user does (clear() fires no input event): the server would read an empty field as
    // "keep it", so the page refuses it.
    editable("protectThreshold", "0.5").sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
    confirm();
    waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("error"),
        "protectThreshold: a number is required"));
    browser.findElement(By.id("update-service")).click();
    editable("protectThreshold", "0.5");
    WebElement metadata = browser.findElement(By.cssSelector("#ask textarea[name='metadata']"));
    metadata.clear();
    metadata.sendKeys("no equals sign");
    confirm();
    waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("error"), "key=value"));
    assertThat(witness.call("admin.service.get", "{\"service\":\"payments\"}")).isEqualTo(created);

    // Deleted, after confirming: back on the list, without it.
    browser.findElement(By.id("delete-service")).click();
    confirm();
    row("#services-page");
    waiting().until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#services tr[data-service='payments']"),
        0));
    assertThat(witness.error("admin.service.get", "{\"service\":\"payments\"}").code()).isEqualTo("NOT_FOUND");
  }

  private WebElement field(String name) {
    return browser.findElement(By.cssSelector("#ask input[name='" + name + "']"));
  }

  /**
   * A field of the dialog just asked for, once it is shown with the service's current value: typed
   * into any earlier, what is typed is overwritten when the page renders the question (on a loaded
   * machine that came after the test had emptied the field, which the server then took as valid).
   */
  private WebElement editable(String name, String current) {
    By field = By.cssSelector("#ask[open] input[name='" + name + "']");
    waiting().until(ExpectedConditions.attributeToBe(field, "value", current));
    return browser.findElement(field);
  }

  @Test
  void withTokensThePageAsksForOneAndShowsOnlyWhatItMaySee(@TempDir Path dir) throws Exception {
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, TokenFile.of(Map.of(
        OPS, "{\"*\":[\"read\",\"write\",\"admin\"]}", READER, "{\"team-a\":[\"read\"]}")));
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, tokens)));
    WireClient ops = WireClient.connectWithToken(fixture.port(), "ops", OPS);
    ops.call("instance.register", "{\"namespace\":\"team-a\",\"service\":\"billing\",\"instance\":"
        + "{\"ip\":\"127.0.0.6\",\"port\":9090}}");
    ops.call("instance.register", "{\"service\":\"secret\",\"instance\":{\"ip\":\"127.0.0.7\",\"port\":9090}}");

    // Without a token the server refuses, and the page asks for one.
    open(fixture, "#/services");
    WebElement ask = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("ask")));
    assertThat(ask.getText()).contains("Token");
    // A token the server does not know: the page says so, shows no listing as if it were empty,
    // and asks again.
    ask.findElement(By.name("token")).sendKeys("not-a-token-0000");
    waiting().until(ExpectedConditions.elementToBeClickable(By.id("ask-confirm"))).click(); // asked again at once
    waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("error"), "The token was refused"));
    assertThat(browser.findElement(By.cssSelector(".pager")).isDisplayed()).isFalse();
    assertThat(browser.findElement(By.tagName("body")).getText()).doesNotContain("0 services");
    ask = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("ask")));
    ask.findElement(By.name("token")).clear();
    ask.findElement(By.name("token")).sendKeys(READER);
    confirm();
    // The reader may read team-a only: the namespace list holds team-a alone, with its counts, and the
    // page opens on it rather than on public (not the reader's). It is live (the catalog stream needs
    // only the read permission): a service registered meanwhile appears, and the list counts it.
    row("#services tr[data-service='billing']");
    assertThat(browser.findElements(By.cssSelector("#services tr[data-service='secret']"))).isEmpty();
    assertThat(new Select(browser.findElement(By.id("services-namespace"))).getOptions())
        .extracting(WebElement::getText).containsExactly("team-a (1 service, 1 instance)");
    waiting().until(ExpectedConditions.textToBe(By.id("live"), "live"));
    assertThat(browser.findElement(By.id("error")).isDisplayed()).isFalse();
    ops.call("instance.register", "{\"namespace\":\"team-a\",\"service\":\"ledger\",\"instance\":"
        + "{\"ip\":\"127.0.0.6\",\"port\":9091}}");
    row("#services tr[data-service='ledger']");
    waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("services-namespace"),
        "team-a (2 services, 2 instances)"));

    // The operator's token: every namespace in the list, and public's secret service when picked.
    browser.findElement(By.id("token-button")).click();
    browser.findElement(By.cssSelector("#ask input[name='token']")).sendKeys(OPS);
    confirm();
    waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("services-namespace"),
        "public (1 service, 1 instance)"));
    assertThat(new Select(browser.findElement(By.id("services-namespace"))).getOptions())
        .extracting(WebElement::getText)
        .containsExactly("public (1 service, 1 instance)", "team-a (2 services, 2 instances)");
    new Select(browser.findElement(By.id("services-namespace"))).selectByValue("public");
    row("#services tr[data-service='secret']");
    assertThat(browser.findElements(By.cssSelector("#services tr[data-service='billing']"))).isEmpty();
    waiting().until(ExpectedConditions.textToBe(By.id("live"), "live"));
    ops.close();
  }

  private void screenshot(String name) throws IOException {
    String dir = System.getProperty("dashboard.screenshots");
    if (dir != null) {
      File shot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE);
      Files.copy(shot.toPath(), Path.of(dir, name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
