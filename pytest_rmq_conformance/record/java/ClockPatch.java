// Writes LatencyFaultToleranceImpl and its inner classes, taken from the rocketmq-client jar on the
// class path, into the folder of argument 1 with every call of System.currentTimeMillis() made a
// call of RecordClock.currentTimeMillis(): put first on a class path, the fault table then reads
// the recording's clock. Nothing else in the classes changes (ASM rewrites the one instruction,
// same descriptor, so no frame moves). Prints how many calls it redirected; exits 1 when none.
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

public final class ClockPatch {
    static final String OWNER = "org/apache/rocketmq/client/latency/LatencyFaultToleranceImpl";

    public static void main(String[] args) throws Exception {
        Path out = Paths.get(args[0]);
        URL url = ClockPatch.class.getClassLoader().getResource(OWNER + ".class");
        if (url == null || !"jar".equals(url.getProtocol())) {
            System.err.println("no " + OWNER + ".class in a jar on the class path");
            System.exit(1);
        }
        int calls = 0;
        JarURLConnection connection = (JarURLConnection) url.openConnection();
        connection.setUseCaches(false);
        try (JarFile jar = connection.getJarFile()) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                String name = entry.getName();
                if (!name.equals(OWNER + ".class") && !(name.startsWith(OWNER + "$") && name.endsWith(".class"))) {
                    continue;
                }
                int[] redirected = {0};
                byte[] patched = patch(read(jar.getInputStream(entry)), redirected);
                calls += redirected[0];
                Path target = out.resolve(name);
                Files.createDirectories(target.getParent());
                try (OutputStream file = Files.newOutputStream(target)) {
                    file.write(patched);
                }
            }
        }
        System.out.println(calls);
        if (calls == 0) {
            System.err.println(OWNER + " never reads System.currentTimeMillis(): nothing to redirect");
            System.exit(1);
        }
    }

    static byte[] patch(byte[] bytes, int[] redirected) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                return new MethodVisitor(Opcodes.ASM9, super.visitMethod(access, name, descriptor, signature, exceptions)) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean isInterface) {
                        if (opcode == Opcodes.INVOKESTATIC && "java/lang/System".equals(owner) && "currentTimeMillis".equals(method)) {
                            redirected[0]++;
                            owner = "RecordClock";
                        }
                        super.visitMethodInsn(opcode, owner, method, desc, isInterface);
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }

    static byte[] read(InputStream in) throws java.io.IOException {
        try (InputStream stream = in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = stream.read(buffer)) > 0; ) {
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        }
    }
}
