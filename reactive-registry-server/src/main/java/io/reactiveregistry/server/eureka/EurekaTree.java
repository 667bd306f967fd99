package io.reactiveregistry.server.eureka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import javax.xml.stream.XMLStreamWriter;

/**
 * Eureka's documents as one tree, whichever of its two encodings carries them. Eureka's JSON is
 * its XML written as JSON ({@code "port": {"$": 8080, "@enabled": "true"}} is
 * {@code <port enabled="true">8080</port>}), so one tree serves both: an element is a map of its
 * children, its attributes under {@code @name} and its text under {@code $}; a repeated element is a
 * list; a leaf is its text. The door reads a body into a tree and writes a tree as the caller asked.
 */
final class EurekaTree {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * Made here, once: an {@code ObjectReader} finds its deserializer when it is made, where
   * {@code ObjectMapper.readValue} finds it on first use, behind a lock; the first registrations,
   * arriving at once on several event loops, waited on that lock.
   */
  private static final ObjectReader JSON_READER = JSON.readerFor(Object.class);
  private static final XMLInputFactory XML_IN = XMLInputFactory.newFactory();
  private static final XMLOutputFactory XML_OUT = XMLOutputFactory.newFactory();
  private static final byte[] XML_DECLARATION = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
      .getBytes(StandardCharsets.UTF_8);

  static {
    // No DTDs and no external entities: a body is data, never a reference to a file or a URL.
    XML_IN.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    XML_IN.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
  }

  /** How a document is encoded. */
  enum Format {
    JSON("application/json"), XML("application/xml");

    final String contentType;

    Format(String contentType) {
      this.contentType = contentType;
    }
  }

  private EurekaTree() {}

  /** A body's root element's name and content; refused with what is wrong with it when it is not a document. */
  record Document(String root, Object content) {}

  static Document read(byte[] body, Format format) {
    if (body.length == 0) {
      throw new EurekaRefusal(400, "the request has no body: it must be an InstanceInfo document");
    }
    return format == Format.JSON ? readJson(body) : readXml(body);
  }

  private static Document readJson(byte[] body) {
    Object parsed;
    try {
      parsed = JSON_READER.readValue(body);
    } catch (java.io.IOException e) {
      String reason = e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
      throw new EurekaRefusal(400, "the body is not valid JSON: " + reason);
    }
    if (!(parsed instanceof Map<?, ?> map) || map.size() != 1) {
      throw new EurekaRefusal(400, "the body must be a JSON object with one member, the document: {\"instance\": {...}}");
    }
    Map.Entry<?, ?> root = map.entrySet().iterator().next();
    return new Document(String.valueOf(root.getKey()), root.getValue());
  }

  private static Document readXml(byte[] body) {
    try {
      XMLStreamReader reader = XML_IN.createXMLStreamReader(new ByteArrayInputStream(body));
      try {
        while (reader.hasNext() && reader.next() != XMLStreamConstants.START_ELEMENT) {
          // skips the prolog
        }
        if (!reader.isStartElement()) {
          throw new EurekaRefusal(400, "the body is not an XML document: it has no element");
        }
        String root = reader.getLocalName();
        return new Document(root, element(reader));
      } finally {
        reader.close();
      }
    } catch (XMLStreamException e) {
      throw new EurekaRefusal(400, "the body is not valid XML: " + e.getMessage());
    }
  }

  /** The element the reader is at the start of, read to its end. */
  private static Object element(XMLStreamReader reader) throws XMLStreamException {
    Map<String, Object> content = new LinkedHashMap<>();
    for (int i = 0; i < reader.getAttributeCount(); i++) {
      content.put("@" + reader.getAttributeLocalName(i), reader.getAttributeValue(i));
    }
    StringBuilder text = new StringBuilder();
    boolean children = false;
    while (reader.hasNext()) {
      int event = reader.next();
      if (event == XMLStreamConstants.START_ELEMENT) {
        children = true;
        String name = reader.getLocalName();
        Object child = element(reader);
        Object before = content.get(name);
        if (before == null) {
          content.put(name, child);
        } else if (before instanceof RepeatedElements list) {
          list.add(child);
        } else {
          RepeatedElements list = new RepeatedElements();
          list.add(before);
          list.add(child);
          content.put(name, list);
        }
      } else if (event == XMLStreamConstants.CHARACTERS || event == XMLStreamConstants.CDATA) {
        text.append(reader.getText());
      } else if (event == XMLStreamConstants.END_ELEMENT) {
        break;
      }
    }
    if (!children && content.isEmpty()) {
      return text.toString().trim();
    }
    if (!children) {
      content.put("$", text.toString().trim());
    }
    return content;
  }

  /** Elements of one name read in a row: a list, as JSON writes them. */
  private static final class RepeatedElements extends ArrayList<Object> {}

  static byte[] write(String root, Map<String, Object> content, Format format) {
    if (format == Format.JSON) {
      return json(Map.of(root, content));
    }
    byte[] element = fragment(root, content, format);
    byte[] document = new byte[XML_DECLARATION.length + element.length];
    System.arraycopy(XML_DECLARATION, 0, document, 0, XML_DECLARATION.length);
    System.arraycopy(element, 0, document, XML_DECLARATION.length, element.length);
    return document;
  }

  /**
   * One element as it appears inside a document: for JSON its content alone (the value of its
   * name), for XML the element without the document's declaration. A document put together from
   * fragments ({@link Renderings}) reads as one written whole.
   */
  static byte[] fragment(String name, Map<String, Object> content, Format format) {
    if (format == Format.JSON) {
      return json(content);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
    try {
      XMLStreamWriter writer = XML_OUT.createXMLStreamWriter(out, "UTF-8");
      writeElement(writer, name, content);
      writer.flush();
      writer.close();
    } catch (XMLStreamException e) {
      throw new IllegalStateException("writing XML to memory failed", e);
    }
    return out.toByteArray();
  }

  private static byte[] json(Object tree) {
    try {
      return JSON.writeValueAsBytes(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of maps, lists and scalars is always JSON", e);
    }
  }

  private static void writeElement(XMLStreamWriter writer, String name, Object value) throws XMLStreamException {
    if (value instanceof List<?> list) {
      for (Object item : list) {
        writeElement(writer, name, item);
      }
      return;
    }
    if (!validName(name)) { // a metadata key XML cannot name (Eureka's XML cannot carry it either)
      return;
    }
    writer.writeStartElement(name);
    if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        String key = String.valueOf(entry.getKey());
        if (key.startsWith("@")) {
          writer.writeAttribute(key.substring(1), String.valueOf(entry.getValue()));
        }
      }
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        String key = String.valueOf(entry.getKey());
        if (key.equals("$")) {
          writer.writeCharacters(String.valueOf(entry.getValue()));
        } else if (!key.startsWith("@")) {
          writeElement(writer, key, entry.getValue());
        }
      }
    } else if (value != null) {
      writer.writeCharacters(String.valueOf(value));
    }
    writer.writeEndElement();
  }

  /** Whether {@code name} may name an XML element (the ASCII subset; Eureka's own keys all are). */
  private static boolean validName(String name) {
    if (name.isEmpty() || name.regionMatches(true, 0, XMLConstants.XML_NS_PREFIX, 0, 3)) {
      return false; // names starting with "xml" are reserved
    }
    char first = name.charAt(0);
    if (!(Character.isLetter(first) || first == '_')) {
      return false;
    }
    for (int i = 1; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.')) {
        return false;
      }
    }
    return true;
  }
}
